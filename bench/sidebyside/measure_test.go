package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The stderr both programs print (controller/cli/sync.go, clientgo/main.go),
// progress lines and klog noise included.
func TestParseReadsWhatBothProgramsPrint(t *testing.T) {
	for _, tc := range []struct {
		name, stderr  string
		objects       int
		syncTook      time.Duration
		heapMiB       float64
		events        int
		eventsTook    time.Duration
		eventsPerSecs float64
	}{
		{name: "kubewire sync", stderr: "listed 5000 objects…\nsynced 10000 objects in 1.234567s; heap after GC 21.5 MiB\n",
			objects: 10000, syncTook: 1234567 * time.Microsecond, heapMiB: 21.5},
		{name: "client-go until-events", stderr: "W1122 warnings.go:70] x\n100000 events after sync in 20s\nsynced 10000 objects in 2m1.5s; heap after GC 108.0 MiB\n",
			objects: 10000, syncTook: 121500 * time.Millisecond, heapMiB: 108, events: 100000, eventsTook: 20 * time.Second, eventsPerSecs: 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s sample
			if err := s.parse(tc.stderr); err != nil {
				t.Fatal(err)
			}
			if s.objects != tc.objects || s.syncTook != tc.syncTook || s.heapMiB != tc.heapMiB || s.events != tc.events || s.eventsTook != tc.eventsTook {
				t.Fatalf("got %d objects in %v, heap %v, %d events in %v", s.objects, s.syncTook, s.heapMiB, s.events, s.eventsTook)
			}
			if got, want := s.eventsPerSec(), tc.eventsPerSecs; got != want {
				t.Fatalf("eventsPerSec = %v, want %v", got, want)
			}
		})
	}
}

func TestParseWithoutSyncedLineIsAnError(t *testing.T) {
	var s sample
	if err := s.parse("interrupted after 3s: 10 objects cached\n"); err == nil {
		t.Fatal("no error")
	}
}

func TestGoalVerdict(t *testing.T) {
	for _, tc := range []struct {
		g     goal
		ratio float64
		want  string
	}{
		{goal{true, 0.4}, 0.3, "met"},
		{goal{true, 0.4}, 0.4, "met"},
		{goal{true, 0.5}, 0.6, "**missed**: 20% above the goal"},
		{goal{false, 3}, 3.5, "met"},
		{goal{false, 3}, 2.4, "**missed**: 20% below the goal"},
		{goal{}, 7, ""},
	} {
		if got := tc.g.verdict(tc.ratio); got != tc.want {
			t.Errorf("%v at %g× = %q, want %q", tc.g, tc.ratio, got, tc.want)
		}
	}
}

func TestMedianLeavesOutWarmupsAndTheOtherProgram(t *testing.T) {
	samples := []sample{
		{prog: kubewire, warmup: true, heapMiB: 100},
		{prog: clientgo, heapMiB: 50},
		{prog: kubewire, heapMiB: 3},
		{prog: kubewire, heapMiB: 1},
		{prog: kubewire, heapMiB: 2},
		{prog: kubewire, heapMiB: 4},
	}
	if got, want := medianOf(samples, kubewire, "", func(s sample) float64 { return s.heapMiB }), 2.5; got != want {
		t.Fatalf("median = %v, want %v", got, want)
	}
}

// A mode puts its environment in front, through env, and its flags after the
// program's own; -modes names them in any case.
func TestModesBuildTheCommandLines(t *testing.T) {
	ms, err := pickModes("default, list,metadata-only")
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"bin/kubewire", "sync", "pods"}
	var got []string
	for _, m := range ms {
		got = append(got, strings.Join(m.argv(base, m.kwFlags), " "))
	}
	want := []string{
		"bin/kubewire sync pods",
		"env KUBE_FEATURE_WatchListClient=false bin/kubewire sync pods",
		"bin/kubewire sync pods --metadata-only",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := pickModes("default,fast"); err == nil {
		t.Fatal("an unknown mode: no error")
	}
}

// A meter without a server measures nothing, and says so.
func TestServerMeterWithoutAProcess(t *testing.T) {
	if c := (serverMeter{}).start()(); c.measured {
		t.Fatalf("measured %+v with no process", c)
	}
}

// The floor's goal (≤ 1.05×) is kubewire's default sync against one plain
// LIST, on a server where kubewire lists with LIST (1.33 and later); before
// that the streaming list's ratio is reported without a goal.
func TestFloorGoalHoldsWhereKubewireLists(t *testing.T) {
	samples := func(kw, fl time.Duration) []sample {
		var out []sample
		for i := 0; i < 3; i++ {
			out = append(out,
				sample{prog: kubewire, mode: "default", server: serverCost{measured: true, cpu: kw}},
				sample{prog: floor, mode: floor, server: serverCost{measured: true, cpu: fl}})
		}
		return out
	}
	for _, tc := range []struct {
		server string
		kw     time.Duration
		want   string
	}{
		{"v1.37 (unstamped build)", 1020 * time.Millisecond, "| default | kubewire | 1.02 (1.02–1.02) | 1.02× | ≤ 1.05× | met |"},
		{"v1.37 (unstamped build)", 1100 * time.Millisecond, "| default | kubewire | 1.10 (1.10–1.10) | 1.1× | ≤ 1.05× | **missed**: 5% above the goal |"},
		{"v1.32 (unstamped build)", 2900 * time.Millisecond, "| default | kubewire | 2.90 (2.90–2.90) | 2.9× | — |  |"},
	} {
		r := &report{sync: &syncResult{server: tc.server, ns: "sbs", serverPID: 1, modes: []mode{modes[0]}, samples: samples(tc.kw, time.Second)}}
		var b strings.Builder
		r.floorRows(&b)
		if !strings.Contains(b.String(), tc.want+"\n") {
			t.Errorf("server %s, kubewire %v against a floor of 1 s: no line %q in\n%s", tc.server, tc.kw, tc.want, b.String())
		}
	}
}
