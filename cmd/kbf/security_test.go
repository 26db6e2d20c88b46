package main

import (
	"context"
	"github.com/kbf-project/kbf/compose"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// secretPassword is the password of the test's properties file: found in
// anything kbf writes or says, it is a leak.
const secretPassword = "s3cr3t-never-recorded"

func writeProps(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func saslProps(t *testing.T) string {
	return writeProps(t, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-512",
		`sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="`+secretPassword+`";`)
}

// TestCommandConfigFlag checks every command that reaches the cluster
// takes --command-config, reads it before anything starts, and refuses a
// file it cannot use in one line with exit 2, never quoting the password.
func TestCommandConfigFlag(t *testing.T) {
	good := saslProps(t)
	bad := writeProps(t, "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=GSSAPI",
		`sasl.jaas.config=x required password="`+secretPassword+`";`)
	missing := filepath.Join(t.TempDir(), "none.properties")

	// Each command, and how to find the security it read.
	cmds := []struct {
		name string
		args []string
		add  func(got **compose.Flags) func(*globals) *cobra.Command
	}{
		{"up", []string{"up"}, func(got **compose.Flags) func(*globals) *cobra.Command {
			return func(g *globals) *cobra.Command {
				return newUpCmdF(g, func(_ context.Context, o *upOptions) error { *got = &o.cluster; return nil })
			}
		}},
		{"status", []string{"status"}, func(got **compose.Flags) func(*globals) *cobra.Command {
			return func(g *globals) *cobra.Command {
				return newStatusCmdF(g, func(_ context.Context, o *statusOptions) error { *got = &o.cluster; return nil })
			}
		}},
		{"probe", []string{"probe"}, func(got **compose.Flags) func(*globals) *cobra.Command {
			return func(g *globals) *cobra.Command {
				return newProbeCmdF(g, func(_ context.Context, o *probeOptions) error {
					if o.experimentOptions().Probe.Security == nil {
						t.Error("probe: the probe's configuration is not secured")
					}
					*got = &o.cluster
					return nil
				})
			}
		}},
		{"run", []string{"run", "--kill", "sigkill"}, func(got **compose.Flags) func(*globals) *cobra.Command {
			return func(g *globals) *cobra.Command {
				return newRunCmdF(g, func(_ context.Context, o *runOptions) error {
					if o.Experiment().Probe.Security == nil {
						t.Error("run: the probe's configuration is not secured")
					}
					*got = &o.Cluster
					return nil
				})
			}
		}},
		{"bench", []string{"bench", "--kill", "sigkill"}, func(got **compose.Flags) func(*globals) *cobra.Command {
			return func(g *globals) *cobra.Command {
				return newBenchCmdF(g, func(_ context.Context, o *benchOptions) error { *got = &o.run.Cluster; return nil })
			}
		}},
	}
	files := []struct {
		name     string
		file     string
		wantCode int
		wantErr  string
	}{
		{"usable", good, exitOK, ""},
		{"missing", missing, exitUsage, "--command-config: "},
		{"unknown mechanism", bad, exitUsage, "sasl.mechanism"},
	}
	for _, c := range cmds {
		for _, f := range files {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				var got *compose.Flags
				code, stderr := runOnly(t, c.add(&got), append(c.args, "--command-config", f.file)...)
				if code != f.wantCode || !strings.Contains(stderr, f.wantErr) {
					t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, stderr, f.wantCode, f.wantErr)
				}
				if strings.Count(stderr, "\n") > 1 || strings.Contains(stderr, secretPassword) {
					t.Errorf("stderr %q: want one line without the password", stderr)
				}
				if f.wantCode != exitOK {
					if got != nil {
						t.Error("the command ran with a file it cannot use")
					}
					return
				}
				sec, err := got.Security()
				if err != nil || sec == nil || sec.Username != "alice" {
					t.Fatalf("security %v, %v; want alice's", sec, err)
				}
				opts, err := got.Options()
				if err != nil || opts.Security != sec {
					t.Errorf("compose options' security %v, %v; want the file's", opts.Security, err)
				}
			})
		}
	}
}
