package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// report is everything the Markdown file says. Either phase may be nil (-sync=false,
// -throughput=false).
type report struct {
	cfg                   config
	machine               machine
	loadBefore, loadAfter string
	bins                  binaries
	sync                  *syncResult
	tput                  *tputResult
}

// A goal is one of the targets of issues 9 and 33 for a ratio kubewire /
// client-go: at most (atMost) or at least x.
type goal struct {
	atMost bool
	x      float64
}

func (g goal) String() string {
	if g.x == 0 {
		return "—"
	}
	if g.atMost {
		return fmt.Sprintf("≤ %g×", g.x)
	}
	return fmt.Sprintf("≥ %g×", g.x)
}

// verdict says whether ratio meets g and, when it does not, by how much it misses:
// for "≤ g", how far above g it is; for "≥ g", how far below.
func (g goal) verdict(ratio float64) string {
	switch {
	case g.x == 0:
		return ""
	case g.atMost && ratio <= g.x, !g.atMost && ratio >= g.x:
		return "met"
	case g.atMost:
		return fmt.Sprintf("**missed**: %.0f%% above the goal", (ratio/g.x-1)*100)
	default:
		return fmt.Sprintf("**missed**: %.0f%% below the goal", (1-ratio/g.x)*100)
	}
}

// A row of the medians table: kubewire, client-go with its defaults, and
// client-go with managedFields stripped (0 where the row has no such run).
// The goal is read against the stripped anchor where there is one (issue 42),
// else against the defaults.
type row struct {
	what       string
	kw, cg, cs float64
	format     func(float64) string
	goal       goal
}

// markdown renders the report: the setting, the medians with ratios and goals,
// then every run.
func (r *report) markdown(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# kubewire next to client-go, side by side — %s\n\n", now.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- machine: %s\n", r.machine)
	fmt.Fprintf(&b, "- load average (1, 5, 15 min): %s before, %s after\n", r.loadBefore, r.loadAfter)
	fmt.Fprintf(&b, "- kubewire %s; client-go v0.37.2 (bench/clientgo); both built with `go build -o`\n", r.bins.commit)
	if s := r.sync; s != nil {
		where := "a kube-apiserver + etcd started for this run by .ci/cluster/up.sh"
		if s.kubeconfig != "" {
			where = "the cluster in " + s.kubeconfig
		}
		fmt.Fprintf(&b, "- sync: server %s, %s; namespace %s holding %d pods; %s, then %s; a round runs each mode, kubewire first in each pair\n",
			s.server, where, s.ns, s.pods, count(r.cfg.warmup, "warm-up round"), count(r.cfg.runs, "measured round"))
		fmt.Fprintf(&b, "  - `%s`\n  - `%s` (client-go stripped: the same with `-strip-managed-fields`)\n  - `%s` (the LIST floor, once a round, after the modes)\n",
			commandLine(s.kubewireArgs), commandLine(s.clientgoArgs), commandLine(s.floorArgs))
		for _, m := range s.modes {
			fmt.Fprintf(&b, "  - mode %s: %s\n", m.name, m.describe)
		}
		if s.serverPID != 0 {
			fmt.Fprintf(&b, "  - API server cost: kube-apiserver process %d, CPU from /proc/PID/stat before and after each run, RSS growth = highest VmRSS sampled every 10 ms during the run less VmRSS before it; it includes whatever else the server did meanwhile\n", s.serverPID)
		} else {
			b.WriteString("  - API server cost: not measured (its process was not found: give -server-pid)\n")
		}
	}
	if t := r.tput; t != nil {
		how := "started for this run"
		if !t.started {
			how = "already running"
		}
		fmt.Fprintf(&b, "- throughput: `clientgo serve` at %s (%s, on this machine): a LIST of %d pods, then a watch of %d MODIFIED events of a 5.2 KB pod; %s, kubewire first in each\n",
			t.addr, how, t.pods, t.events, count(r.cfg.tputRuns, "measured pair"))
		fmt.Fprintf(&b, "  - `%s`\n  - `%s`\n", commandLine(t.kubewireArgs), commandLine(t.clientgoArgs))
	}
	if s := r.sync; s != nil {
		r.syncTable(&b)
	}
	b.WriteString("\nGoals: medians; ratio = kubewire / client-go, each with its defaults unless the row says otherwise, and kubewire / client-go with managedFields stripped (its SetTransform, what controller-runtime's TransformStripManagedFields does; kubewire drops them already); goals from issue 42, read against the stripped anchor where it was run (the server's CPU against the LIST floor; issue 9 for the binary size).\n\n")
	b.WriteString("| | kubewire | client-go | ratio | client-go stripped | ratio | goal | |\n|---|---:|---:|---:|---:|---:|---|---|\n")
	for _, row := range r.rows() {
		ratio := row.kw / row.cg
		cs, csRatio := "", ""
		if row.cs != 0 {
			cs, csRatio = row.format(row.cs), fmt.Sprintf("%.3g×", row.kw/row.cs)
			ratio = row.kw / row.cs
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.3g× | %s | %s | %s | %s |\n", row.what, row.format(row.kw), row.format(row.cg), row.kw/row.cg, cs, csRatio, row.goal, row.goal.verdict(ratio))
	}
	if s := r.sync; s != nil {
		if s.dumpSame {
			fmt.Fprintf(&b, "| sync: `--dump` | %d lines | %d lines | | | | identical | met: all %d dumps identical |\n", s.dumpLines, s.dumpLines, len(s.samples)-s.count(floor))
		} else {
			fmt.Fprintf(&b, "| sync: `--dump` | | | | | | identical | **missed**: %s |\n", s.dumpNote)
		}
		if s.serverPID != 0 {
			r.floorRows(&b)
		}
	}
	b.WriteString("\nEvery run, in order (peak RSS and CPU from wait4's rusage; heap, sync time and events from the programs' stderr):\n\n")
	b.WriteString("| phase | run | program | mode | wall s | CPU s | peak RSS MiB | heap after GC MiB | objects | synced in s | events/s | server CPU s | server RSS growth MiB |\n")
	b.WriteString("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	runs := func(phase string, samples []sample) {
		per := 2 // samples per round
		if phase == "sync" {
			per = 3*len(r.sync.modes) + 1 // three programs a mode, and the floor
		}
		for i, s := range samples {
			n := fmt.Sprint(i/per + 1)
			if s.warmup {
				n = "warm-up"
			} else if phase == "sync" {
				n = fmt.Sprint(i/per + 1 - r.cfg.warmup)
			}
			eps, scpu, srss := "—", "—", "—"
			if s.events > 0 {
				eps = fmt.Sprintf("%.0f", s.eventsPerSec())
			}
			if s.server.measured {
				scpu, srss = fmt.Sprintf("%.2f", s.server.cpu.Seconds()), fmt.Sprintf("%.1f", mib(s.server.rssGrowth))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f | %.2f | %.1f | %.1f | %d | %.2f | %s | %s | %s |\n",
				phase, n, s.prog, s.mode, s.wall.Seconds(), s.cpu.Seconds(), mib(s.rss), s.heapMiB, s.objects, s.syncTook.Seconds(), eps, scpu, srss)
		}
	}
	if r.sync != nil {
		runs("sync", r.sync.samples)
	}
	if r.sync != nil && len(r.sync.relist) > 0 {
		r.relistMarkdown(&b)
	}
	if r.tput != nil {
		runs("throughput", r.tput.samples)
	}
	return b.String()
}

// rows are the medians table: what issue 9 sets goals for, and beside them what
// helps to read them.
func (r *report) rows() []row {
	secs := func(v float64) string { return fmt.Sprintf("%.2f s", v) }
	mibs := func(v float64) string { return fmt.Sprintf("%.1f MiB", v) }
	var rows []row
	if s := r.sync; s != nil {
		m := func(mode string, f func(sample) float64) (float64, float64, float64) {
			return medianOf(s.samples, kubewire, mode, f), medianOf(s.samples, clientgo, mode, f), medianOf(s.samples, stripped, mode, f)
		}
		wallGoal := 0.8 // issue 42, against the stripped anchor
		if r.machine.cores >= 8 {
			wallGoal = 1
		}
		for _, g := range []struct {
			mode, what string
			f          func(sample) float64
			format     func(float64) string
			goal       goal
		}{
			{"default", "sync: API server CPU", serverCPU, secs, goal{}}, // its goal is the floor's (floorRows)
			{"default", "sync: wall, start to exit", wall, secs, goal{true, wallGoal}},
			{"default", "sync: CPU (user + sys)", cpu, secs, goal{true, 0.30}},
			{"default", "sync: peak RSS", peakRSS, mibs, goal{true, 0.30}},
			{"default", "sync: heap after GC", heap, mibs, goal{true, 0.30}},
			{"default", "sync: API server RSS growth", serverRSS, mibs, goal{}},
			{"default", "sync: time to synced (as printed)", synced, secs, goal{}},
			{"LIST", "sync, both LIST: API server CPU", serverCPU, secs, goal{}},
			{"LIST", "sync, both LIST: wall, start to exit", wall, secs, goal{}},
			{"metadata-only", "metadata-only: wall, start to exit", wall, secs, goal{true, 1}},
			{"metadata-only", "metadata-only: API server CPU", serverCPU, secs, goal{}},
			{"metadata-only", "metadata-only: CPU (user + sys)", cpu, secs, goal{}},
			{"metadata-only", "metadata-only: peak RSS", peakRSS, mibs, goal{}},
			{"metadata-only", "metadata-only: heap after GC", heap, mibs, goal{true, 0.5}},
		} {
			if !s.has(g.mode) {
				continue
			}
			kw, cg, cs := m(g.mode, g.f)
			if kw == 0 && cg == 0 { // not measured (the server's cost without its process)
				continue
			}
			rows = append(rows, row{g.what, kw, cg, cs, g.format, g.goal})
		}
	}
	mb := func(v float64) string { return fmt.Sprintf("%.1f MB", v/1e6) }
	rows = append(rows, row{"binary size", float64(r.bins.kubewireSize), float64(r.bins.clientgoSize), 0, mb, goal{true, 0.2}})
	if t := r.tput; t != nil {
		m := func(f func(sample) float64) (float64, float64) {
			return medianOf(t.samples, kubewire, "", f), medianOf(t.samples, clientgo, "", f)
		}
		kw, cg := m(sample.eventsPerSec)
		rows = append(rows, row{"throughput: events/s after sync", kw, cg, 0, func(v float64) string { return fmt.Sprintf("%.0f", v) }, goal{false, 3}})
		kw, cg = m(func(s sample) float64 { return s.cpu.Seconds() })
		rows = append(rows, row{"throughput: CPU (user + sys)", kw, cg, 0, secs, goal{true, 0.33}})
		kw, cg = m(func(s sample) float64 { return s.wall.Seconds() })
		rows = append(rows, row{"throughput: wall, start to exit", kw, cg, 0, secs, goal{}})
		kw, cg = m(func(s sample) float64 { return mib(s.rss) })
		rows = append(rows, row{"throughput: peak RSS", kw, cg, 0, mibs, goal{}})
	}
	return rows
}

// medianOf is the median of f over prog's measured (not warm-up) samples in inMode.
func medianOf(samples []sample, prog, inMode string, f func(sample) float64) float64 {
	xs := valuesOf(samples, prog, inMode, f)
	if len(xs) == 0 {
		return 0
	}
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// valuesOf is f over prog's measured (not warm-up) samples in inMode, sorted.
func valuesOf(samples []sample, prog, inMode string, f func(sample) float64) []float64 {
	var xs []float64
	for _, s := range samples {
		if s.prog == prog && s.mode == inMode && !s.warmup {
			xs = append(xs, f(s))
		}
	}
	sort.Float64s(xs)
	return xs
}

// spreadOf is "median (lowest–highest)" of f over prog's measured samples in inMode.
func spreadOf(samples []sample, prog, inMode string, f func(sample) float64, format string) string {
	xs := valuesOf(samples, prog, inMode, f)
	if len(xs) == 0 {
		return "—"
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", medianOf(samples, prog, inMode, f), xs[0], xs[len(xs)-1])
}

// floorRows is the API server's CPU for each program's sync against the floor,
// one plain LIST of the same pods measured in the same rounds: the goal (issue
// 42) is kubewire's default sync at most 1.05× it, on a server of 1.33 or later,
// where kubewire lists with LIST; before 1.33 it streams (listwatch, "Choosing
// how to list"), and the ratio is reported with no goal.
func (r *report) floorRows(b *strings.Builder) {
	s := r.sync
	fl := medianOf(s.samples, floor, floor, serverCPU)
	if fl == 0 {
		return
	}
	lists := true
	if m := minorVersion.FindStringSubmatch(s.server); m != nil {
		minor, _ := strconv.Atoi(m[1])
		lists = minor >= 33
	}
	fmt.Fprintf(b, "\nAPI server CPU against the LIST floor (one unpaged `GET /api/v1/namespaces/%s/pods`, JSON, gzip, HTTP/2, no resourceVersion: %s s, median (lowest–highest) of %s):\n\n",
		s.ns, spreadOf(s.samples, floor, floor, serverCPU, "%.2f"), count(len(valuesOf(s.samples, floor, floor, serverCPU)), "run"))
	b.WriteString("| mode | program | API server CPU s, median (lowest–highest) | ÷ floor | goal | |\n|---|---|---:|---:|---|---|\n")
	for _, m := range s.modes {
		for _, prog := range []string{kubewire, clientgo, stripped} {
			med := medianOf(s.samples, prog, m.name, serverCPU)
			g := goal{}
			if prog == kubewire && m.name == "default" && lists {
				g = goal{true, 1.05}
			}
			fmt.Fprintf(b, "| %s | %s | %s | %.3g× | %s | %s |\n", m.name, prog, spreadOf(s.samples, prog, m.name, serverCPU, "%.2f"), med/fl, g, g.verdict(med/fl))
		}
	}
}

// minorVersion finds a server's minor version in what serverVersion says.
var minorVersion = regexp.MustCompile(`v1\.(\d+)`)

// commandLine is argv as the report shows it: the measured binary as bin/NAME,
// after `env VAR=…` when the run goes through env.
func commandLine(argv []string) string {
	out := slices.Clone(argv)
	i := 0
	if out[0] == "env" {
		for i = 1; i < len(out) && strings.Contains(out[i], "="); i++ {
		}
	}
	if i < len(out) {
		out[i] = filepath.Join("bin", filepath.Base(out[i]))
	}
	return strings.Join(out, " ")
}

// count is "1 pair", "2 pairs".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// relistMarkdown is the relist phase: medians per program, then every run.
func (r *report) relistMarkdown(b *strings.Builder) {
	runs := r.sync.relist
	med := func(prog string, f func(relistSample) float64) float64 {
		var xs []float64
		for _, s := range runs {
			if s.prog == prog {
				xs = append(xs, f(s))
			}
		}
		sort.Float64s(xs)
		if n := len(xs); n%2 == 0 {
			return (xs[n/2-1] + xs[n/2]) / 2
		}
		return xs[len(xs)/2]
	}
	fmt.Fprintf(b, "\nRelist after a 410 (relist.go: a proxy ends the watch and answers its resumption 410 Gone; each program lists %d pods again while it holds them), medians of %s; the goal is peak ≤ 1.3× steady:\n\n", r.sync.pods, count(r.cfg.relistRuns, "pair"))
	b.WriteString("| program | steady RSS MiB | relist peak RSS MiB | peak ÷ steady | RSS after MiB | CPU s | listed again in s | goal |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, prog := range []string{kubewire, clientgo} {
		ratio := med(prog, func(s relistSample) float64 { return float64(s.peak) / float64(s.steady) })
		fmt.Fprintf(b, "| %s | %.1f | %.1f | %.2f× | %.1f | %.2f | %.2f | %s |\n", prog,
			med(prog, func(s relistSample) float64 { return mib(s.steady) }),
			med(prog, func(s relistSample) float64 { return mib(s.peak) }),
			ratio,
			med(prog, func(s relistSample) float64 { return mib(s.end) }),
			med(prog, func(s relistSample) float64 { return s.cpu.Seconds() }),
			med(prog, func(s relistSample) float64 { return s.took.Seconds() }),
			goal{true, 1.3}.verdict(ratio))
	}
	b.WriteString("\n| run | program | steady RSS MiB | relist peak RSS MiB | RSS after MiB | CPU s | listed again in s |\n|---:|---|---:|---:|---:|---:|---:|\n")
	for i, s := range runs {
		fmt.Fprintf(b, "| %d | %s | %.1f | %.1f | %.1f | %.2f | %.2f |\n", i/2+1, s.prog, mib(s.steady), mib(s.peak), mib(s.end), s.cpu.Seconds(), s.took.Seconds())
	}
}

// The figures of a sample the tables show, in seconds and MiB.
func wall(s sample) float64      { return s.wall.Seconds() }
func synced(s sample) float64    { return s.syncTook.Seconds() }
func cpu(s sample) float64       { return s.cpu.Seconds() }
func peakRSS(s sample) float64   { return mib(s.rss) }
func heap(s sample) float64      { return s.heapMiB }
func serverCPU(s sample) float64 { return s.server.cpu.Seconds() }
func serverRSS(s sample) float64 { return mib(s.server.rssGrowth) }

// count is how many runs of prog the phase made, warm-up included.
func (r *syncResult) count(prog string) int {
	n := 0
	for _, s := range r.samples {
		if s.prog == prog {
			n++
		}
	}
	return n
}

// has reports whether the phase ran the mode named name.
func (r *syncResult) has(name string) bool {
	return slices.ContainsFunc(r.modes, func(m mode) bool { return m.name == name })
}

// syncTable is every mode side by side: the medians of each program in each.
func (r *report) syncTable(b *strings.Builder) {
	s := r.sync
	fmt.Fprintf(b, "\nSync of %d pods, medians of %s (API server figures: what kube-apiserver spent while the program ran; the LIST floor is one plain LIST, floor.go, its heap not measured):\n\n|", s.pods, count(r.cfg.runs, "run"))
	for _, m := range s.modes {
		fmt.Fprintf(b, " | kubewire %s | client-go %s | client-go stripped %s", m.name, m.name, m.name)
	}
	b.WriteString(" | LIST floor |\n|---")
	b.WriteString(strings.Repeat("|---:", 3*len(s.modes)+1))
	b.WriteString("|\n")
	perPod := float64(s.pods)
	for _, line := range []struct {
		what   string
		f      func(sample) float64
		format string
	}{
		{"wall, start to exit", wall, "%.2f s"},
		{"time to synced (as printed)", synced, "%.2f s"},
		{"client CPU (user + sys)", cpu, "%.2f s"},
		{"API server CPU", serverCPU, "%.2f s"},
		{"API server RSS growth", serverRSS, "%.1f MiB"},
		{"peak RSS", peakRSS, "%.1f MiB"},
		{"heap after GC", heap, "%.1f MiB"},
		{"client CPU per pod", func(x sample) float64 { return cpu(x) / perPod * 1e6 }, "%.0f µs"},
		{"heap per pod", func(x sample) float64 { return heap(x) * (1 << 20) / perPod }, "%.0f B"},
	} {
		if line.what[:3] == "API" && s.serverPID == 0 {
			continue
		}
		fmt.Fprintf(b, "| %s", line.what)
		for _, m := range s.modes {
			for _, prog := range []string{kubewire, clientgo, stripped} {
				fmt.Fprintf(b, " | "+line.format, medianOf(s.samples, prog, m.name, line.f))
			}
		}
		fmt.Fprintf(b, " | "+line.format+" |\n", medianOf(s.samples, floor, floor, line.f))
	}
}
