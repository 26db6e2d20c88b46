package benchfile

import (
	"errors"
	"strings"
	"testing"
)

func TestReadOrigin(t *testing.T) {
	tests := []struct {
		name, text string
		want       Origin
		err        string
	}{
		{"whole", "Unit ack-stall-sec better=lower\nacks: all\n\nBenchmarkFailover/scenario=a/role=leader 1 1 ack-stall-sec\n", Origin{File: "f"}, ""},
		{"a shard", "shard: 2/3\nplan: abc\nUnit ack-stall-sec better=lower\n", Origin{File: "f", I: 2, N: 3, Plan: "abc"}, ""},
		{"after the first result: not the file's", "acks: all\nBenchmarkFailover/scenario=a/role=leader 1 1 ack-stall-sec\nshard: 2/3\n", Origin{File: "f"}, ""},
		{"a shard out of range", "shard: 4/3\nplan: abc\n", Origin{}, "f:1: shard \"4/3\""},
		{"a shard with no plan", "shard: 1/3\n", Origin{}, "without its plan line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readOrigin(strings.NewReader(tt.text), "f")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestCheckShards(t *testing.T) {
	sh := func(file string, i, n int, plan string) Origin { return Origin{File: file, I: i, N: n, Plan: plan} }
	whole := Origin{File: "whole"}
	tests := []struct {
		name string
		in   []Origin
		want string // "" for none
	}{
		{"none", nil, ""},
		{"whole benchmarks", []Origin{whole, whole}, ""},
		{"all three", []Origin{sh("c", 3, 3, "p"), sh("a", 1, 3, "p"), sh("b", 2, 3, "p")}, ""},
		{"one of one plan, whole beside", []Origin{whole, sh("a", 1, 2, "p"), sh("b", 2, 2, "p")}, ""},
		{"one missing", []Origin{sh("a", 1, 3, "p"), sh("c", 3, 3, "p")}, "shard 2/3 missing (given 2 of 3"},
		{"two missing", []Origin{sh("a", 2, 3, "p")}, "shard 1/3, 3/3 missing"},
		{"one twice", []Origin{sh("a", 1, 2, "p"), sh("b", 2, 2, "p"), sh("c", 2, 2, "p")}, "shard 2/2 twice, b and c"},
		{"two plans", []Origin{sh("a", 1, 2, "p"), sh("b", 2, 2, "q")}, "a (shard 1/2) and b (shard 2/2) are of different benchmarks"},
		{"cut two ways", []Origin{sh("a", 1, 2, "p"), sh("b", 2, 3, "p")}, "a is shard 1/2 and b shard 2/3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckShards(tt.in)
			if tt.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrShards) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, tt.want)
			}
		})
	}
}
