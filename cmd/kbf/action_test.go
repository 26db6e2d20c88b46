package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestActionFailInput runs the action's input check (action.yml at the
// repository's root) as a runner would, with fail: set as a user might
// set it: only true and false pass, anything else fails the step in one
// line; and the gate step runs unless fail is false.
func TestActionFailInput(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Steps []struct {
				Name string `yaml:"name"`
				If   string `yaml:"if"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	var check, gateIf string
	for _, s := range action.Runs.Steps {
		switch s.Name {
		case "check the inputs":
			check = s.Run
		case "the gate":
			gateIf = s.If
		}
	}
	if check == "" {
		t.Fatal(`action.yml has no step "check the inputs"`)
	}
	if gateIf != "inputs.fail != 'false'" {
		t.Errorf("the gate runs if %q; want it to run unless fail is false", gateIf)
	}
	tests := []struct {
		fail string
		ok   bool
	}{
		{"true", true}, {"false", true},
		{"True", false}, {"yes", false}, {"1", false}, {"", false}, {"false ", false}, {"no", false},
	}
	for _, tt := range tests {
		t.Run(tt.fail, func(t *testing.T) {
			cmd := exec.Command(bash, "-e", "-c", check)
			cmd.Env = append(os.Environ(), "FAIL="+tt.fail)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if tt.ok {
				if err != nil || out.Len() != 0 {
					t.Errorf("fail: %q refused (%v): %s", tt.fail, err, out.String())
				}
				return
			}
			if err == nil || strings.Count(out.String(), "\n") != 1 || !strings.Contains(out.String(), "want true or false") {
				t.Errorf("fail: %q: %v, %q; want the step failed in one line", tt.fail, err, out.String())
			}
		})
	}
}
