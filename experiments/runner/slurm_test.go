package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/plan"
)

// fakeSlurm answers Slurm's client commands from a script: each call
// takes the next reply for its command (the last one repeats) and is
// recorded.
type fakeSlurm struct {
	replies map[string][]string
	errs    map[string]error
	calls   []string
}

func (f *fakeSlurm) run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, name+" "+strings.Join(args, " "))
	if err := f.errs[name]; err != nil {
		return nil, err
	}
	r := f.replies[name]
	if len(r) == 0 {
		return nil, nil
	}
	out := r[0]
	if len(r) > 1 {
		f.replies[name] = r[1:]
	}
	return []byte(out), nil
}

func (f *fakeSlurm) called(name string) []string {
	var out []string
	for _, c := range f.calls {
		if strings.HasPrefix(c, name+" ") {
			out = append(out, strings.TrimPrefix(c, name+" "))
		}
	}
	return out
}

func TestShellQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "''"},
		{"/a b/c", "'/a b/c'"},
		{"it's", `'it'\''s'`},
		{"$HOME;rm", "'$HOME;rm'"},
	} {
		if got := shellQuote(tc.in); got != tc.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSlurmFinalStates(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sacct    string
		sacctErr error
		scontrol string
		want     map[int]string
	}{
		{"sacct", "7_0|COMPLETED|0:0\n7_1|FAILED|1:0\n7_2|CANCELLED by 0|0:15\n", nil, "", map[int]string{0: "COMPLETED exit 0:0", 1: "FAILED exit 1:0", 2: "CANCELLED by 0 exit 0:15"}},
		{"sacct lines without an element", "7|COMPLETED|0:0\nbad line\n7_x|FAILED|1:0\n7_3|TIMEOUT|0:1\n", nil, "", map[int]string{3: "TIMEOUT exit 0:1"}},
		{"no accounting: scontrol", "", errors.New("sacct: Slurm accounting storage is disabled"),
			"JobId=8 ArrayJobId=7 ArrayTaskId=0 JobState=COMPLETED Reason=None ExitCode=0:0\nJobId=9 ArrayJobId=7 ArrayTaskId=1 JobState=FAILED Reason=NonZeroExitCode ExitCode=2:0\n",
			map[int]string{0: "COMPLETED exit 0:0", 1: "FAILED exit 2:0"}},
		{"sacct empty: scontrol", "", nil, "JobId=8 ArrayTaskId=4 JobState=OUT_OF_MEMORY ExitCode=0:125\n", map[int]string{4: "OUT_OF_MEMORY exit 0:125"}},
		{"nothing known", "", nil, "", map[int]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeSlurm{replies: map[string][]string{"sacct": {tc.sacct}, "scontrol": {tc.scontrol}}, errs: map[string]error{"sacct": tc.sacctErr}}
			s := &Slurm{client: f.run}
			if got := s.finalStates("7"); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("states %v, want %v", got, tc.want)
			}
			if c := f.called("sacct"); len(c) != 1 || !strings.Contains(c[0], "-j 7 ") {
				t.Errorf("sacct calls %q", c)
			}
		})
	}
}

// TestSlurmSubmit: one array per resource shape in the order the tasks
// come, its task list and script written beside the results, sbatch's
// arguments, and its parsable reply read as the job ID.
func TestSlurmSubmit(t *testing.T) {
	out := t.TempDir()
	tasks := []*plan.Task{
		{ID: "measure-a", CPUs: 1}, {ID: "train-x", CPUs: 2}, {ID: "measure-b", CPUs: 1},
		{ID: "speed", CPUs: 1, Exclusive: true}, {ID: "odd", CPUs: 0},
	}
	f := &fakeSlurm{replies: map[string][]string{"sbatch": {"101\n", "102;cluster\n", "103\n"}}}
	s := &Slurm{Args: []string{"--partition=cpu"}, client: f.run}
	jobs, err := s.submit(context.Background(), Env{Binary: "/bin/nn lab", Out: out}, tasks)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, j := range jobs {
		var ids []string
		for _, tk := range j.tasks {
			ids = append(ids, tk.ID)
		}
		got = append(got, append([]string{j.id}, ids...))
	}
	want := [][]string{{"101", "measure-a", "measure-b"}, {"102", "train-x"}, {"103", "speed", "odd"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("arrays %v, want %v", got, want)
	}
	calls := f.called("sbatch")
	for i, w := range []string{"--array=0-1 ", "--array=0-0 ", "--array=0-1 "} {
		if !strings.Contains(calls[i], w) || !strings.Contains(calls[i], "--partition=cpu") {
			t.Errorf("sbatch %d: %s", i, calls[i])
		}
	}
	if !strings.Contains(calls[0], "--cpus-per-task=1") || !strings.Contains(calls[1], "--cpus-per-task=2") || !strings.Contains(calls[2], "--exclusive") {
		t.Errorf("resources: %q", calls)
	}
	script := strings.Fields(calls[0])
	sh := script[len(script)-1]
	ids, err := os.ReadFile(strings.TrimSuffix(sh, ".sh") + ".tasks")
	if err != nil || string(ids) != "measure-a\nmeasure-b\n" {
		t.Errorf("task list %q, %v", ids, err)
	}
	body, err := os.ReadFile(sh)
	if err != nil || !strings.Contains(string(body), "exec '/bin/nn lab' experiment task --out '"+out+"' \"$id\"") {
		t.Errorf("script %s: %v\n%s", sh, err, body)
	}
	if filepath.Dir(sh) != filepath.Join(out, "slurm") {
		t.Errorf("script in %s", filepath.Dir(sh))
	}
	// A reply that is not a job ID is an error.
	f = &fakeSlurm{replies: map[string][]string{"sbatch": {"Submitted batch job 5\n"}}}
	s.client = f.run
	if _, err := s.submit(context.Background(), Env{Binary: "b", Out: out}, tasks[:1]); err == nil || !strings.Contains(err.Error(), "not a job ID") {
		t.Errorf("non-numeric reply: %v", err)
	}
}

// TestSlurmWait: squeue's lines report elements that start; an element
// that ends lets Drop cancel the ones no longer needed, pending ones in
// their own scancel before running ones; the wait ends when nothing is
// queued, and job IDs squeue has forgotten count as gone.
func TestSlurmWait(t *testing.T) {
	tasks := []*plan.Task{{ID: "c0"}, {ID: "c1"}, {ID: "c2"}, {ID: "c3"}}
	jobs := []slurmJob{{id: "7", tasks: tasks}}
	f := &fakeSlurm{replies: map[string][]string{"squeue": {
		"7_[0-3] PENDING\n",
		"7_0 RUNNING\n7_1 RUNNING\n7_2 PENDING\n7_3 PENDING\n",
		"7_1 RUNNING\n7_2 PENDING\n7_3 PENDING\n",
		"",
	}}}
	drop := map[string]bool{}
	env := Env{Out: t.TempDir(), Drop: func(id string) bool { return drop[id] }}
	var events []string
	s := &Slurm{Poll: 1, client: f.run}
	ev := func(e Event) {
		events = append(events, e.Task+" "+e.State)
		if e.Task == "c1" && e.State == "started" {
			drop["c1"], drop["c3"] = true, true // decided once c0 is done
		}
	}
	if err := s.wait(context.Background(), env, jobs, ev); err != nil {
		t.Fatal(err)
	}
	if want := []string{"c0 started", "c1 started"}; !reflect.DeepEqual(events, want) {
		t.Errorf("events %q, want %q", events, want)
	}
	if got, want := f.called("scancel"), []string{"7_3", "7_1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("scancel %q, want %q (pending first)", got, want)
	}
	if n := len(f.called("squeue")); n != 4 {
		t.Errorf("%d squeue polls, want 4", n)
	}

	f = &fakeSlurm{errs: map[string]error{"squeue": errors.New("squeue: error: Invalid job id specified")}}
	s.client = f.run
	if err := s.wait(context.Background(), env, jobs, func(Event) {}); err != nil {
		t.Errorf("forgotten job: %v", err)
	}
	f = &fakeSlurm{errs: map[string]error{"squeue": errors.New("squeue: error: slurm_load_jobs: Unable to contact slurm controller")}}
	s.client = f.run
	if err := s.wait(context.Background(), env, jobs, func(Event) {}); err == nil {
		t.Error("an unreachable controller did not fail the wait")
	}
}
