//go:build unix

package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The finding of issue 29: `timeout 2 kubewire get pods -o json > pods.json`
// against a slow server printed its summary line and exited 0 with an empty
// file. The command runs as a process of its own (TestMain's child, wired as
// main.go is) and gets a real signal while the server has not answered: it
// must say so and exit 128 + the signal, as kubectl does.
func TestExit_a_signal_before_the_work_is_done_exits_128_plus_the_signal(t *testing.T) {
	for _, tt := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		path, arrived := holdingServer(t, holdList)
		cmd := exec.Command(os.Args[0], "get", "pods", "-o", "json")
		cmd.Env = append(os.Environ(), "KUBEWIRE_CLI_CHILD=1", "KUBECONFIG="+path)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-arrived:
		case <-time.After(time.Minute): // a watchdog: the request never came
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the child never asked for the pods:\n%s", stderr.String())
		}
		if err := cmd.Process.Signal(tt.sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var exit *exec.ExitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.want || stdout.Len() != 0 ||
			!strings.HasPrefix(stderr.String(), "interrupted after ") || !strings.HasSuffix(stderr.String(), ": get pods did not finish\n") {
			t.Errorf("get pods -o json, %v while the server had not answered: exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout, one line saying get pods did not finish",
				tt.sig, code, stdout.String(), stderr.String(), tt.want)
		}
	}
}
