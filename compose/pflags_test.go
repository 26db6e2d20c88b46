package compose

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestFlagsOptions(t *testing.T) {
	cases := []struct {
		name    string
		sized   bool
		args    []string
		brokers int
		wantErr string
	}{
		{name: "defaults", sized: true, brokers: 3},
		{name: "sized", sized: true, args: []string{"--brokers", "5"}, brokers: 5},
		{name: "a file's size given", sized: true, args: []string{"-f", "c.yaml", "--brokers", "5"}, wantErr: "with --file, the file says"},
		// The default size is no size asked for: the file's stands.
		{name: "a file, the size defaulted", sized: true, args: []string{"-f", "c.yaml"}},
		{name: "a project without its file", args: []string{"--project-name", "p"}, wantErr: "--project-name: only with --file"},
		{name: "a command-config that is not there", args: []string{"--command-config", "/nonexistent/client.properties"}, wantErr: "command-config"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f Flags
			fs := pflag.NewFlagSet("up", pflag.ContinueOnError)
			f.AddFlags(fs, c.sized)
			f.AddSecurityFlags(fs, nil)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			o, err := f.Options()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Brokers != c.brokers || o.Security != nil {
				t.Errorf("options %d brokers, security %v; want %d, none", o.Brokers, o.Security, c.brokers)
			}
		})
	}
}

func TestFlagsGivenUnbound(t *testing.T) {
	var f Flags
	if f.Given("brokers") {
		t.Error("flags never added report one given")
	}
}

func TestUpFlags(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		topics  int
		wantErr string
	}{
		{name: "defaults", topics: 2},
		{name: "no single topic", args: []string{"--single-topic", ""}, topics: 1},
		{name: "an empty image", args: []string{"--image", ""}, wantErr: "--image: must not be empty"},
		{name: "no time", args: []string{"--timeout", "0s"}, wantErr: "--timeout 0s: must be positive"},
		{name: "one name twice", args: []string{"--topic", "t", "--single-topic", "t"}, wantErr: `--single-topic "t": must differ from --topic`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var u UpFlags
			fs := pflag.NewFlagSet("up", pflag.ContinueOnError)
			u.AddFlags(fs)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			err := u.Check(fs.Changed("image"))
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ts := u.Topics()
			if len(ts) != c.topics || ts[0].Name != DefaultTopics()[0].Name {
				t.Errorf("topics %+v", ts)
			}
			if len(ts) == 2 && ts[1].Brokers != nil {
				t.Errorf("the single-replica topic is placed: %+v", ts[1])
			}
		})
	}
}
