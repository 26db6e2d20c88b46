package clients

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kbf-project/kbf/internal/probespec"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/results"
)

// Spec is one external probe's run.
type Spec struct {
	Client     Name
	Bootstrap  []string
	Topic      string
	Partitions []int32 // empty: every partition of Topic
	Interval   time.Duration
	Acks       string // "all" or "1"
	// Duration is how long the probe sends; 0 sends until Stop.
	Duration time.Duration
	RunID    string
	// StartOffsets are where the probe's consumer starts, per partition;
	// a partition without one starts at its log's end.
	StartOffsets map[int32]int64
	// Dir receives probe.csv, client.log and client.json.
	Dir string
	// Drain is how long, once sending stops, the probe waits for what is
	// outstanding; 0 leaves the probe's default (DefaultDrain).
	Drain time.Duration
	// Settings are client settings by the client's own names, over the
	// probe's (each probe's --set).
	Settings map[string]string
	// Security secures the client as a --command-config file says; nil
	// speaks PLAINTEXT. Start hands it to the probe in a file of its own
	// (CommandConfig), never on the command line.
	Security *kafkasec.Config
	// CommandConfig is the path of the client's properties file, in its
	// own names (--command-config): Start writes it from Security.
	CommandConfig string
	// Group is the group reader the probe runs beside its own reader
	// (kbf run --consumer group); nil runs none.
	Group *GroupSpec
}

// GroupSpec is a reference probe's group reader, as kbf's franz-go probe
// has one (results.GroupSettings): each probe takes it in its own terms
// (clients/README.md) and writes results.GroupFile and
// results.GroupEventsFile in its directory.
type GroupSpec struct {
	// ID is the group's id: one per client, so that the clients' group
	// readers are not members of one group.
	ID       string
	Protocol string // results.GroupProtocolClassic or results.GroupProtocolConsumer
	Commit   string // results.CommitSync, results.CommitAsync or results.CommitInterval
	// AutoCommitInterval is the time between two autocommits under
	// results.CommitInterval; 0 leaves the probe's (one second, as
	// kbf's own).
	AutoCommitInterval time.Duration
}

// Validate reports the first field that cannot work.
func (g *GroupSpec) Validate() error {
	switch {
	case g.ID == "" || strings.ContainsAny(g.ID, " \t\n,="):
		return fmt.Errorf("group id %q: must be non-empty, without spaces, ',' or '='", g.ID)
	case g.Protocol != results.GroupProtocolClassic && g.Protocol != results.GroupProtocolConsumer:
		return fmt.Errorf("group protocol %q: want %s or %s", g.Protocol, results.GroupProtocolClassic, results.GroupProtocolConsumer)
	case g.Commit != results.CommitSync && g.Commit != results.CommitAsync && g.Commit != results.CommitInterval:
		return fmt.Errorf("commit %q: want %s, %s or %s", g.Commit, results.CommitSync, results.CommitAsync, results.CommitInterval)
	case g.AutoCommitInterval < 0:
		return fmt.Errorf("auto-commit interval %v: must not be negative", g.AutoCommitInterval)
	}
	return nil
}

// DefaultDrain is the reference probes' drain when Spec.Drain is 0.
const DefaultDrain = 5 * time.Second

// Validate reports the first field that cannot work.
func (s *Spec) Validate() error {
	if err := (probespec.Sending{Bootstrap: s.Bootstrap, Topic: s.Topic, Interval: s.Interval, Acks: s.Acks}).Check(); err != nil {
		return err
	}
	switch {
	case s.Duration < 0, s.Drain < 0:
		return errors.New("durations must not be negative")
	case s.Dir == "":
		return errors.New("no results directory")
	case strings.ContainsAny(s.RunID, " \t\n"):
		return fmt.Errorf("run id %q: must not contain spaces", s.RunID)
	}
	for p := range s.StartOffsets {
		if len(s.Partitions) > 0 && !slices.Contains(s.Partitions, p) {
			return fmt.Errorf("start offset for partition %d, which is not probed", p)
		}
	}
	for k := range s.Settings {
		if k == "" || strings.Contains(k, "=") {
			return fmt.Errorf("setting name %q: must be non-empty, without '='", k)
		}
	}
	if s.Group != nil {
		return s.Group.Validate()
	}
	return nil
}

// Args returns the probe's command line after the program, in the form
// clients/README.md specifies. Lists and maps are written in a fixed order,
// so one Spec gives one command line.
func (s *Spec) Args() []string {
	a := []string{
		"--bootstrap=" + strings.Join(s.Bootstrap, ","),
		"--topic=" + s.Topic,
	}
	if len(s.Partitions) > 0 {
		ps := make([]string, len(s.Partitions))
		for i, p := range s.Partitions {
			ps[i] = strconv.Itoa(int(p))
		}
		a = append(a, "--partitions="+strings.Join(ps, ","))
	}
	a = append(a,
		"--interval="+s.Interval.String(),
		"--acks="+s.Acks,
		"--duration="+s.Duration.String(),
		"--out="+s.Dir,
	)
	if s.RunID != "" {
		a = append(a, "--run-id="+s.RunID)
	}
	if len(s.StartOffsets) > 0 {
		parts := make([]int32, 0, len(s.StartOffsets))
		for p := range s.StartOffsets {
			parts = append(parts, p)
		}
		slices.Sort(parts)
		so := make([]string, len(parts))
		for i, p := range parts {
			so[i] = fmt.Sprintf("%d:%d", p, s.StartOffsets[p])
		}
		a = append(a, "--start-offsets="+strings.Join(so, ","))
	}
	if s.Drain > 0 {
		a = append(a, "--drain="+s.Drain.String())
	}
	if s.CommandConfig != "" {
		a = append(a, "--command-config="+s.CommandConfig)
	}
	if g := s.Group; g != nil {
		a = append(a, "--consumer="+results.ConsumerGroup, "--group="+g.ID,
			"--group-protocol="+g.Protocol, "--commit="+g.Commit)
		if g.AutoCommitInterval > 0 {
			a = append(a, "--auto-commit-interval="+g.AutoCommitInterval.String())
		}
	}
	keys := make([]string, 0, len(s.Settings))
	for k := range s.Settings {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a = append(a, "--set="+k+"="+s.Settings[k])
	}
	return a
}

// EnvProbeDir names a directory to look for the built probes in first.
const EnvProbeDir = "KBF_PROBE_DIR"

// ProbeDir is where the make targets put the built probes, relative to the
// repository (and so to a kbf built there by make build).
const ProbeDir = "bin"

// Locator finds the built probes and the Java runtime.
type Locator struct {
	// Dirs are searched in order for a probe's file.
	Dirs []string
	// Java is the java command; empty looks for it in JAVA_HOME, then PATH.
	Java string
}

// DefaultLocator searches $KBF_PROBE_DIR, then bin/ beside the kbf
// executable and the executable's own directory, then bin/ under the
// working directory.
func DefaultLocator() *Locator {
	var dirs []string
	if d := os.Getenv(EnvProbeDir); d != "" {
		dirs = append(dirs, d)
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Join(filepath.Dir(exe), ProbeDir), filepath.Dir(exe))
		}
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, filepath.Join(wd, ProbeDir))
	}
	return &Locator{Dirs: dirs}
}

// ErrNotBuilt is reported when a probe cannot be found.
var ErrNotBuilt = errors.New("probe not built")

// errInProcess is reported for a client that does not run as a subprocess.
var errInProcess = errors.New("runs in kbf's own process, not as a subprocess")

// Command returns the program and arguments that run spec's probe.
func (l *Locator) Command(spec Spec) ([]string, error) {
	c, err := Lookup(spec.Client)
	if err != nil {
		return nil, err
	}
	if !c.External {
		return nil, fmt.Errorf("%s %w (package probe)", c.Name, errInProcess)
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("%s probe: %w", c.Name, err)
	}
	path, err := l.find(c)
	if err != nil {
		return nil, err
	}
	if c.Name != Java {
		return append([]string{path}, spec.Args()...), nil
	}
	java, err := l.java()
	if err != nil {
		return nil, err
	}
	return append([]string{java, "-jar", path}, spec.Args()...), nil
}

func (l *Locator) find(c Client) (string, error) {
	for _, d := range l.Dirs {
		p := filepath.Join(d, c.File)
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			continue
		}
		if c.Name != Java && st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s probe %s is not executable: rebuild it with make %s", c.Name, p, c.MakeTarget)
		}
		return p, nil
	}
	where := "nowhere"
	if len(l.Dirs) > 0 {
		where = strings.Join(l.Dirs, ", ")
	}
	return "", fmt.Errorf("%s %w: no %s in %s; build it with make %s (or set %s to its directory)",
		c.Name, ErrNotBuilt, c.File, where, c.MakeTarget, EnvProbeDir)
}

func (l *Locator) java() (string, error) {
	if l.Java != "" {
		return l.Java, nil
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", "java")
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("java probe needs a Java 17 or later runtime: no java in JAVA_HOME or PATH (%w)", err)
	}
	return p, nil
}

// Process is a running external probe.
type Process struct {
	Spec Spec
	// Grace is how long Stop waits after SIGTERM before it kills the probe.
	Grace time.Duration

	cmd     *exec.Cmd
	done    chan struct{}
	err     error // the exit, once done
	stderr  *tail
	stop    sync.Once
	killed  atomic.Bool // Stop had to kill it
	started time.Time   // a client.json from before this is another run's
}

// Start runs spec's probe, found by DefaultLocator.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	return DefaultLocator().Start(ctx, spec)
}

// Start runs spec's probe. It creates spec.Dir if need be. Cancelling ctx
// stops the probe as Stop does; the probe never outlives kbf, which it
// would only through a SIGKILL of kbf itself (on Linux, not even then).
func (l *Locator) Start(ctx context.Context, spec Spec) (*Process, error) {
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s probe: results directory: %w", spec.Client, err)
	}
	secDir, err := writeSecurity(&spec)
	if err != nil {
		return nil, fmt.Errorf("%s probe: %w", spec.Client, err)
	}
	cleanup := func() {
		if secDir != "" {
			os.RemoveAll(secDir)
		}
	}
	argv, err := l.Command(spec)
	if err != nil {
		cleanup()
		return nil, err
	}
	drain := spec.Drain
	if drain == 0 {
		drain = DefaultDrain
	}
	p := &Process{Spec: spec, Grace: drain + 10*time.Second, done: make(chan struct{}), stderr: &tail{max: 8 << 10}}
	p.started = time.Now()
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = sysProcAttr()
	if err := p.cmd.Start(); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cleanup()
			return nil, fmt.Errorf("%s probe: start %s: %w", spec.Client, pe.Path, pe.Err)
		}
		cleanup()
		return nil, fmt.Errorf("%s probe: start: %w", spec.Client, err)
	}
	go func() {
		err := p.cmd.Wait()
		cleanup()
		p.err = p.exitError(err)
		close(p.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			p.Stop(context.WithoutCancel(ctx))
		case <-p.done:
		}
	}()
	return p, nil
}

// writeSecurity writes spec.Security as the client's own properties into
// a directory of kbf's (mode 0700, the file 0600), outside the trial
// directory so that no secret is kept with the results, and points
// spec.CommandConfig at it. It returns the directory, to be removed once
// the probe has exited; "" when there is nothing to write.
func writeSecurity(spec *Spec) (string, error) {
	if spec.Security == nil {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "kbf-"+string(spec.Client)+"-")
	if err != nil {
		return "", fmt.Errorf("command config: %w", err)
	}
	var props map[string]string
	switch spec.Client {
	case Librdkafka:
		props, err = spec.Security.Librdkafka(dir)
	default: // Java's client takes Kafka's own names, the file as it is
		props = spec.Security.JavaProperties()
	}
	if err == nil {
		spec.CommandConfig = filepath.Join(dir, "client.properties")
		err = kafkasec.WriteProperties(spec.CommandConfig, props)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("command config: %w", err)
	}
	return dir, nil
}

// errExited is reported by Ready for a probe that ended before it was ready.
var errExited = errors.New("probe exited before its first send")

// Ready waits until the probe has written its client.json, which it does
// once its clients are connected and it knows where each partition's log
// ends, just before its first send; a JVM under load can take seconds to
// get there, so a trial waits for this before the fault. It returns the
// file's contents.
func (p *Process) Ready(ctx context.Context) (*Info, error) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if info, err := ReadInfo(p.Spec.Dir); err == nil && !info.Started.Before(p.started) &&
			(p.Spec.RunID == "" || info.RunID == p.Spec.RunID) {
			return info, nil
		}
		select {
		case <-p.done:
			if p.err != nil {
				return nil, p.err
			}
			return nil, fmt.Errorf("%s %w", p.Spec.Client, errExited)
		case <-ctx.Done():
			return nil, fmt.Errorf("%s probe not ready: %w", p.Spec.Client, ctx.Err())
		case <-t.C:
		}
	}
}

// Pid returns the probe's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the probe has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the probe to exit by itself (a Spec.Duration ends) and
// returns how it ended: nil for a clean exit.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// Stop asks the probe to stop (SIGTERM: it drains and writes everything),
// waits for it up to Grace or until ctx is done, then kills it. It returns
// how the probe ended; a probe that had to be killed is an error.
func (p *Process) Stop(ctx context.Context) error {
	p.stop.Do(func() {
		select {
		case <-p.done:
			return
		default:
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			p.kill()
			return
		}
		t := time.NewTimer(p.Grace)
		defer t.Stop()
		select {
		case <-p.done:
		case <-t.C:
			p.kill()
		case <-ctx.Done():
			p.kill()
		}
	})
	<-p.done
	return p.err
}

func (p *Process) kill() {
	p.killed.Store(true)
	p.cmd.Process.Kill()
}

func (p *Process) exitError(err error) error {
	if p.killed.Load() {
		return fmt.Errorf("%s probe did not stop within %v of SIGTERM: killed%s", p.Spec.Client, p.Grace, p.stderr.lastLine())
	}
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s probe: %w%s", p.Spec.Client, err, p.stderr.lastLine())
}

// Stderr returns the end of what the probe wrote to its standard error.
func (p *Process) Stderr() string { return p.stderr.String() }

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(b)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// lastLine returns ": " and the last line written, or "" if none.
func (t *tail) lastLine() string {
	s := strings.TrimSpace(t.String())
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return ""
	}
	return ": " + s
}
