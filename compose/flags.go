package compose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// What kbf's cluster commands (up, down, status, and run and bench on
// kbf's own cluster) give compose from their flags, read and checked, and
// how they print what Up did.

// Shape is the cluster as the command line names it: the user's compose
// file, or the embedded cluster's size, and the nodes' settings.
type Shape struct {
	File, ProjectName string
	// Sized is set when the command takes --brokers, --controllers,
	// --combined and --config; the rest of the fields are then read.
	Sized                      bool
	Brokers, Controllers       int
	BrokersSet, ControllersSet bool // given, not defaulted
	Combined                   bool
	// Config are --config's KEY=VALUE or NODE:KEY=VALUE (ParseSetting).
	Config []string
}

// Apply checks s and sets o's cluster from it; an error names the flag
// it refuses, before anything reaches Docker.
func (s Shape) Apply(o *Options) error {
	o.File, o.ProjectName = s.File, s.ProjectName
	if s.ProjectName != "" && s.File == "" {
		return errors.New("--project-name: only with --file")
	}
	if !s.Sized {
		return nil
	}
	if err := s.checkSize(); err != nil {
		return err
	}
	if s.File == "" {
		o.Brokers, o.Controllers, o.Combined = s.Brokers, s.Controllers, s.Combined
	}
	for _, c := range s.Config {
		st, err := ParseSetting(c)
		if err != nil {
			return err
		}
		o.Config = append(o.Config, st)
	}
	return CheckLimits(o.Config)
}

// checkSize refuses a size for a compose file, --combined beside
// --controllers, and sizes compose would take for its defaults.
func (s Shape) checkSize() error {
	switch {
	case s.File != "" && (s.BrokersSet || s.ControllersSet || s.Combined):
		return errors.New("--brokers, --controllers and --combined shape the embedded cluster; with --file, the file says what the cluster is")
	case s.Combined && s.ControllersSet:
		return errors.New("--combined and --controllers: with --combined the brokers are the controllers")
	case s.File != "":
		return nil
	// compose takes 0 for its default of 3: refused here.
	case s.Brokers < 1:
		return fmt.Errorf("--brokers %d: want 1 or more", s.Brokers)
	case s.Controllers < 1 && !s.Combined:
		return fmt.Errorf("--controllers %d: want 1 or 3", s.Controllers)
	}
	return nil
}

// OfflineScript builds the offline image; make image runs it.
const OfflineScript = "image/build.sh"

// WithOffline lets Up fall back to the offline image when the official
// one cannot be pulled, building it with OfflineScript when kbf runs from
// its source tree (as make build && ./kbf run does), and say so on out,
// where the script's output goes too.
func (o *Options) WithOffline(out io.Writer) {
	o.Notice = func(s string) { fmt.Fprintf(out, "kbf: %s\n", s) }
	if st, err := os.Stat(OfflineScript); err != nil || !st.Mode().IsRegular() {
		return // the error then names make image
	}
	o.BuildOffline = func(ctx context.Context) error {
		cmd := exec.CommandContext(ctx, "bash", OfflineScript)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w (its output is above; make image runs it again)", OfflineScript, err)
		}
		return nil
	}
}

// Line is one line of kbf up's output: the phase, its time, what it did.
func (p Phase) Line() string {
	line := fmt.Sprintf("%-20s %8s", p.Name, Seconds(p.Took))
	if p.Detail != "" {
		line += "  " + p.Detail
	}
	return line
}

// Seconds is d as the cluster commands print a time: seconds, two
// decimals.
func Seconds(d time.Duration) string {
	return fmt.Sprintf("%.2fs", d.Seconds())
}
