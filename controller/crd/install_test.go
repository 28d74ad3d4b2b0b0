package crd_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/controller/crd"
)

// server is an in-memory API server holding the Widget CRD with the given
// conditions in its status, as the real server's controllers would set them.
func server(t *testing.T, clock *clock.Fake, conds ...string) *apiclient.Client {
	t.Helper()
	srv := apitest.NewServer(clock)
	t.Cleanup(srv.Close)
	b, err := json.Marshal(widgetCRD(t))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	var list []any
	for _, c := range conds {
		typ, status, _ := strings.Cut(c, "=")
		list = append(list, map[string]any{"type": typ, "status": status, "reason": "Because", "message": "it is so"})
	}
	if _, err := srv.Add(apiclient.CRDs, obj); err != nil {
		t.Fatal(err)
	}
	c, err := srv.Client(apiclient.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	status, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": list}})
	if _, err := c.Resource(apiclient.CRDs).Patch(context.Background(), "widgets.widgets.example.com", apiclient.MergePatch, status, apiclient.WriteOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestInstall_returns_once_accepted_established_and_listed(t *testing.T) {
	clock := clock.NewFake()
	c := server(t, clock, "NamesAccepted=True", "Established=True")
	if err := crd.Install(context.Background(), c, widgetCRD(t), crd.InstallOptions{Clock: clock}); err != nil {
		t.Fatal(err)
	}
	got, err := c.Resource(apiclient.CRDs).Get(context.Background(), "widgets.widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := got.Field("spec", "names", "shortNames", "0"); v != "wd" {
		t.Errorf("the CRD stored has shortNames[0] %v, want wd (applied)", v)
	}
}

func TestInstall_gives_up_after_its_timeout_naming_the_condition(t *testing.T) {
	for _, tc := range []struct {
		conds []string
		want  string
	}{
		{nil, "crd widgets.widgets.example.com: NamesAccepted is missing after 10ms"},
		{[]string{"NamesAccepted=False"}, "crd widgets.widgets.example.com: NamesAccepted is False (Because: it is so) after 10ms"},
		{[]string{"NamesAccepted=True", "Established=False"}, "crd widgets.widgets.example.com: Established is False (Because: it is so) after 10ms"},
	} {
		clock := clock.NewFake()
		c := server(t, clock, tc.conds...)
		done := make(chan error, 1)
		go func() {
			done <- crd.Install(context.Background(), c, widgetCRD(t), crd.InstallOptions{Clock: clock, Timeout: 10 * time.Millisecond})
		}()
		clock.BlockUntilDue(10 * time.Millisecond) // its first wait, the whole timeout
		clock.Step(10 * time.Millisecond)
		if err := <-done; err == nil || err.Error() != tc.want {
			t.Errorf("conditions %v: got %v, want %s", tc.conds, err, tc.want)
		}
	}
}
