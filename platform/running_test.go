package platform

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/compose"
)

// TestRunning: kbf's running cluster as the flags name it, with no topic
// of its own; flags kbf cannot use are the flags' error.
func TestRunning(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		file    string
		wantErr bool
	}{
		{"kbf's own", nil, "", false},
		{"a compose file's", []string{"-f", "shop.yaml"}, "shop.yaml", false},
		{"a project name without its file", []string{"--project-name", "shop"}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var f compose.Flags
			fs := pflag.NewFlagSet("probe", pflag.ContinueOnError)
			f.AddFlags(fs, false)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			s, err := Running(&f)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if tc.wantErr {
				if s.Docker != nil {
					t.Errorf("a spec %+v beside the error", s)
				}
				return
			}
			if s.Docker == nil || s.Docker.Topics == nil || len(s.Docker.Topics) != 0 || s.Remote != nil || s.K8s != nil {
				t.Fatalf("spec %+v: want kbf's Docker cluster with no topics", s)
			}
			if s.Docker.File != tc.file {
				t.Errorf("file %q, want %q", s.Docker.File, tc.file)
			}
		})
	}
}
