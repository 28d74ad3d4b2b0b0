package apitest_test

import (
	"strings"
	"testing"

	"github.com/kubewire/kubewire/apiclient"
	"github.com/kubewire/kubewire/apiclient/apitest"
	"github.com/kubewire/kubewire/apiclient/clock"
	"github.com/kubewire/kubewire/apiclient/recording"
)

// newServer starts a Server on a fake clock and returns a client for it.
func newServer(t *testing.T) (*apitest.Server, *apiclient.Client, *clock.Fake) {
	t.Helper()
	clock := clock.NewFake()
	s := withDemo(t, apitest.NewServer(clock))
	t.Cleanup(s.Close)
	c, err := s.Client(apiclient.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return s, c, clock
}

// script parses a recording written inline.
func script(t *testing.T, lines ...string) *recording.Recording {
	t.Helper()
	rec, err := recording.Parse(strings.NewReader(recording.Magic + "\n" + strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func pod(name, rv string) string {
	return `{"metadata":{"name":"` + name + `","namespace":"demo","resourceVersion":"` + rv + `"}}`
}

func event(typ, name, rv string) string {
	return `{"type":"` + typ + `","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"` + name + `","namespace":"demo","resourceVersion":"` + rv + `"}}}`
}

// withDemo creates on s the namespaces these tests write in: demo, and other.
func withDemo(t testing.TB, s *apitest.Server) *apitest.Server {
	t.Helper()
	s.CreateNamespaces("demo", "other")
	return s
}
