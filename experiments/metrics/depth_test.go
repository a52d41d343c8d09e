package metrics

import (
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/nets"
)

// TestNodesToDepth: the counts are deterministic, one per position, and a
// deeper search needs at least as many nodes (iterative deepening repeats
// the shallower iterations on a cleared table).
func TestNodesToDepth(t *testing.T) {
	ps, err := data.ReadPositions(data.BuiltinPositions, 0)
	if err != nil {
		t.Fatal(err)
	}
	ps = SearchPositions(ps, 3)
	spec, _ := archs.Load("koivisto-7.4")
	net, err := nets.Load(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	s := &Subject{Variant: "base", Spec: spec, Net: net, Positions: ps, Search: Search{Positions: 3, Nodes: 1000}}
	ctx := context.Background()
	d4, err := nodesToDepth(ctx, s, ps, 4)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := nodesToDepth(ctx, s, ps, 4)
	d5, _ := nodesToDepth(ctx, s, ps, 5)
	if len(d4.Nodes) != 3 || d4.Depth != 4 {
		t.Fatalf("depth 4: %+v", d4)
	}
	if !reflect.DeepEqual(d4, again) {
		t.Errorf("two searches differ: %v and %v", d4.Nodes, again.Nodes)
	}
	for i := range d4.Nodes {
		if d4.Nodes[i] == 0 || d5.Nodes[i] < d4.Nodes[i] {
			t.Errorf("position %d: %d nodes to depth 4, %d to depth 5", i, d4.Nodes[i], d5.Nodes[i])
		}
	}
	// Through the registry, as the measure task runs it.
	def, ok := Lookup(MetricNodesToDepth)
	if !ok {
		t.Fatal("nodes_to_depth is not registered")
	}
	val, err := def.Measure(ctx, s, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := val.(*DepthNodes); got.Depth != nodesDepth || len(got.Nodes) != 3 || got.Nodes[0] < d5.Nodes[0] {
		t.Errorf("registered measure: %+v (depth 5 took %v)", got, d5.Nodes)
	}
}

func TestDepthRecords(t *testing.T) {
	for _, tc := range []struct {
		name, raw    string
		median, mean float64
		p90          uint64
		wantErr      string
	}{
		{"odd", `{"depth":7,"nodes":[30,10,20]}`, 20, 20, 30, ""},
		{"even", `{"depth":7,"nodes":[40,10,20,30]}`, 25, 25, 40, ""},
		{"ten", `{"depth":7,"nodes":[1,2,3,4,5,6,7,8,9,100]}`, 5.5, 14.5, 9, ""},
		{"one", `{"depth":3,"nodes":[7]}`, 7, 7, 7, ""},
		{"none", `{"depth":7,"nodes":[]}`, 0, 0, 0, "no positions"},
		{"not json", `[1,2]`, 0, 0, 0, "nodes_to_depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals, err := depthRecords(json.RawMessage(tc.raw))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(vals) != 1 {
				t.Fatalf("%d records", len(vals))
			}
			v := vals[0]
			if v.Metric != MetricNodesToDepth || v.Value != tc.median || v.Unit != "nodes" {
				t.Errorf("record %+v, want median %v", v, tc.median)
			}
			if v.Detail["mean"] != tc.mean || v.Detail["p90"] != tc.p90 {
				t.Errorf("mean %v p90 %v, want %v %v", v.Detail["mean"], v.Detail["p90"], tc.mean, tc.p90)
			}
		})
	}
}

// TestRegistry: a definition without its functions, or a name taken
// twice, is refused.
func TestRegistry(t *testing.T) {
	for _, d := range []*Def{
		{Name: "x"},
		{Name: MetricNodesToDepth, Measure: func(context.Context, *Subject, io.Writer) (any, error) { return nil, nil }, Records: func(Stored) ([]Value, error) { return nil, nil }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", d.Name)
				}
			}()
			Register(d)
		}()
	}
	if _, ok := Lookup("no such metric"); ok {
		t.Error("Lookup found a metric never registered")
	}
}
