package difftest_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubewire/kubewire/apiclient/apitest/difftest"
)

// A hand-written sequence, played on apitest alone: the transcript is what the
// harness compares with a real server's. The second apply changes nothing, so
// it keeps version r1, and the watch shows one event.
func ExampleRunFake() {
	seq := difftest.Sequence{Steps: []difftest.Step{
		{Do: "apply", Res: "configmaps", Name: "a", Mgr: "alice", Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`},
		{Do: "apply", Res: "configmaps", Name: "a", Mgr: "alice", Body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}`},
		{Do: "delete", Res: "configmaps", Name: "a", RV: "stale"},
	}}
	lines, err := difftest.RunFake(context.Background(), "demo", seq, difftest.Profile{Minor: 37})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Each line, short: what was asked or seen, and the version it showed.
	version := regexp.MustCompile(`"resourceVersion":"(r[0-9]+)"`)
	for _, l := range lines {
		step, answer, _ := strings.Cut(l, " {")
		if v := version.FindStringSubmatch(l); v != nil {
			answer = v[1]
		} else {
			answer = ""
		}
		fmt.Println(strings.TrimSpace(step + " " + answer))
	}
	// Output:
	// 1 apply configmaps/a mgr=alice r1
	// 2 apply configmaps/a mgr=alice r1
	// 3 delete configmaps/a rv=stale → 409 Status Failure Conflict 409
	// watch configmaps all:
	// ADDED r1
	// watch configmaps sel=on:
}
