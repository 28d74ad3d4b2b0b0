// Package livetest reads the live page's event stream the way the page's script
// does, for tests: controller/live's and the command's (controller/cli).
package livetest

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
)

// Events reads the Server-Sent Events at url+"/api/events" and hands each one,
// its name and its data line, to f until f returns false (then nil) or the
// stream ends (then an error saying why).
func Events(url string, f func(event, data string) bool) error {
	resp, err := http.Get(url + "/api/events")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/api/events: %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	event := ""
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			event = name
		} else if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && !f(event, data) {
			return nil
		}
	}
	return fmt.Errorf("the event stream at %s ended: %v", url, sc.Err())
}
