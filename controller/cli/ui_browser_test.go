package cli_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// The live page in a real browser: headless Chromium loads it from `kubewire
// demo --ui` and the test reads the DOM the page's script built from the event
// stream. .ci/run installs Chromium (Debian package chromium); without it the
// test skips and says so. KUBEWIRE_UI_SCREENSHOT=FILE.png keeps a screenshot.
//
// The browser is driven with the DevTools protocol over a pipe
// (--remote-debugging-pipe: JSON messages ending in a NUL byte on file
// descriptors 3 and 4), which needs no WebSocket client. --dump-dom cannot
// do: the page's event stream never ends, so a virtual time budget never runs
// out, and without one the DOM is dumped before the first event arrives.

// browser is one headless Chromium and the page it has open.
type browser struct {
	t       *testing.T
	toB     io.WriteCloser // the DevTools pipe, to the browser
	fromB   *bufio.Reader  // … and from it
	mu      sync.Mutex     // one call at a time
	id      int            // the last call's id
	session string         // the page's DevTools session
}

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no Chromium on PATH (.ci/run installs the Debian package chromium): the page is not tried in a browser")
	return ""
}

// openBrowser starts Chromium and opens url in a 1400×1000 window.
func openBrowser(t *testing.T, url string) *browser {
	t.Helper()
	path := chromium(t)
	chromeReads, toChrome, err := os.Pipe() // fd 3 in Chromium
	if err != nil {
		t.Fatal(err)
	}
	fromChrome, chromeWrites, err := os.Pipe() // fd 4
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--remote-debugging-pipe", "--user-data-dir="+t.TempDir(), "--window-size=1400,1000", "about:blank")
	cmd.ExtraFiles = []*os.File{chromeReads, chromeWrites}
	// Its stderr goes through a pipe, not to a file: Wait then returns only once
	// every Chromium process (renderers, the zygote) has closed it, so the
	// profile directory is no longer written when the test removes it.
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	chromeReads.Close() // Chromium's ends, now that it has them
	chromeWrites.Close()
	b := &browser{t: t, toB: toChrome, fromB: bufio.NewReader(fromChrome)}
	t.Cleanup(func() {
		b.toB.Close()
		cmd.Process.Kill()
		cmd.Wait()
		fromChrome.Close()
	})
	var target struct{ TargetID string }
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	// Navigate answers once the page's document has replaced about:blank (its
	// script may still be loading: the states below allow for that).
	var nav struct{ ErrorText string }
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		t.Fatalf("the browser could not load %s: %s", url, nav.ErrorText)
	}
	return b
}

// call sends one DevTools method (to the page's session unless session is "")
// and decodes its result into out; events on the way are skipped.
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.id++
	msg := map[string]any{"id": b.id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	req, _ := json.Marshal(msg)
	if _, err := b.toB.Write(append(req, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	for {
		raw, err := b.fromB.ReadBytes(0)
		if err != nil {
			b.t.Fatalf("%s: the browser ended: %v", method, err)
		}
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw[:len(raw)-1], &resp); err != nil {
			b.t.Fatalf("%s: %v", method, err)
		}
		if resp.ID != b.id {
			continue // an event, or the answer to something else
		}
		if resp.Error != nil {
			b.t.Fatalf("%s: %s", method, resp.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(resp.Result, out); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
		return
	}
}

// eval runs a JavaScript expression in the page, awaits it if it is a promise,
// and decodes its value (JSON) into out.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res)
	if e := res.ExceptionDetails; e != nil {
		b.t.Fatalf("in the page: %s %s", e.Text, e.Exception.Description)
	}
	if err := json.Unmarshal(res.Result.Value, out); err != nil {
		b.t.Fatalf("in the page: %v (%s)", err, res.Result.Value)
	}
}

// until is JavaScript: a promise of state() once ready(state()) holds, checked at
// each of the page's animation frames, or of the last state after 20 s (the
// browser's clock, so that a page that never gets there fails, with what it
// showed).
func until(state, ready string) string {
	return fmt.Sprintf(`new Promise((resolve) => {
		const state = () => (%s), ready = (s) => (%s), end = performance.now() + 20000;
		const check = () => { const s = state(); (ready(s) || performance.now() > end) ? resolve(s) : requestAnimationFrame(check); };
		check();
	})`, state, ready)
}

// pageState is what the test reads off the page.
const pageState = `((el) => ({
	totals: Object.fromEntries([...document.querySelectorAll(".stage")].map((e) => [e.id, Number(e.dataset.total)])),
	path: [...document.querySelectorAll("#path li.hop")].map((e) => e.dataset.stage + " " + e.dataset.key),
	status: el("status").textContent,
	step: el("step-explain").textContent,
	stepHidden: el("step").hidden,
	stepSeq: Number((el("step").dataset || {}).seq || 0),
	nextEnabled: el("step-next").disabled === false,
}))((id) => document.getElementById(id) || {})`

type shownPage struct {
	Totals      map[string]int `json:"totals"`
	Path        []string       `json:"path"`
	Status      string         `json:"status"`
	Step        string         `json:"step"`
	StepHidden  bool           `json:"stepHidden"`
	StepSeq     int            `json:"stepSeq"`
	NextEnabled bool           `json:"nextEnabled"`
}

func TestUI_in_a_browser_shows_every_stage_and_the_followed_path(t *testing.T) {
	chromium(t)
	u := uiCommand(t, "demo", "--ui", "127.0.0.1:0")
	u.wait(t, u.stdout)
	b := openBrowser(t, u.url+"/?follow=demo/web-2")

	var got shownPage
	b.eval(until(pageState, `s.path.length >= 24 && Object.values(s.totals).every((n) => n > 0)`), &got)
	for _, stage := range []string{"reflector", "fifo", "store", "handlers", "queue", "workers"} {
		if got.Totals["stage-"+stage] <= 0 {
			t.Errorf("stage %s shows %d; want a count above 0 after the demo (page: %+v)", stage, got.Totals["stage-"+stage], got)
		}
	}
	// web-2's own hops, and the reconcile it caused, each in order (the story's
	// writes to web-2 are traced when their answer comes: not in a fixed place).
	var own, reconcile []string
	for _, hop := range got.Path {
		stage, key, _ := strings.Cut(hop, " ")
		switch {
		case key == "demo/web-2" && stage != "apiclient":
			own = append(own, stage)
		case key == "demo/tools":
			reconcile = append(reconcile, stage)
		}
	}
	// Its delete is two events (marked, then gone), whose hops interleave:
	// they are compared as a set.
	event := "listwatch fifo store handler handler"
	if len(own) > 10 {
		own = append(own[:10], sortedCopy(own[10:])...)
	}
	if got, want := strings.Join(own, " "), event+" "+event+" "+strings.Join(sortedCopy(strings.Fields(event+" "+event)), " "); got != want {
		t.Errorf("web-2's own hops on the page: %s; want its add, update and delete: %s", got, want)
	}
	if got, want := strings.Join(reconcile, " "), "queue controller apiclient apiclient controller"; got != want {
		t.Errorf("the reconcile web-2 caused, on the page: %s; want %s", got, want)
	}
	if !strings.HasPrefix(got.Status, "demo · up ") || !got.StepHidden {
		t.Errorf("status %q, step panel hidden %v; want the demo's status and no step panel", got.Status, got.StepHidden)
	}
	if file := os.Getenv("KUBEWIRE_UI_SCREENSHOT"); file != "" {
		var shot struct{ Data string }
		b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot)
		png, err := base64.StdEncoding.DecodeString(shot.Data)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s (%d bytes)", file, len(png))
	}
}

// Step mode from the keyboard: each Space lets one hop go on, and the page
// explains the hop the pipeline now waits at.
func TestUI_in_a_browser_steps_with_the_keyboard(t *testing.T) {
	chromium(t)
	b := openBrowser(t, uiCommand(t, "demo", "--ui", "127.0.0.1:0", "--step").url+"/")
	var got shownPage
	b.eval(until(pageState, `s.nextEnabled`), &got)
	if got.StepHidden || !got.NextEnabled || !strings.Contains(got.Step, "Reflector") {
		t.Fatalf("step mode at the first hop: %+v; want the step panel, Next enabled, the Reflector's sentence", got)
	}
	if got.StepSeq != 1 {
		t.Fatalf("the first pause is at hop %d, want 1", got.StepSeq)
	}
	seen := []string{got.Step}
	for press := 1; press <= 5; press++ {
		b.eval(`document.dispatchEvent(new KeyboardEvent("keydown", {key: " ", bubbles: true})), true`, new(bool))
		b.eval(until(pageState, fmt.Sprintf(`s.nextEnabled && s.stepSeq > %d`, got.StepSeq)), &got)
		seen = append(seen, got.Step)
		if got.StepSeq != press+1 {
			t.Fatalf("after %d presses of Space the pipeline waits at hop %d, want %d (one hop a press). Sentences shown:\n%s", press, got.StepSeq, press+1, strings.Join(seen, "\n"))
		}
	}
	t.Logf("the first hops, as the page explained them:\n%s", strings.Join(seen, "\n"))
}
