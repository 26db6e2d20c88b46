// Package bench runs a failover benchmark — a list of scenarios, each a
// fault against a cluster and a probe, times a number of trials — and writes
// what CI tools read: bench.txt in the Go benchmark format (benchstat reads
// it), bench.json for github-action-benchmark, summary.md for a job's
// summary page, and for a sweep a table and an SVG per role. It reads a
// scenario file, plans the trials (interleaved, sharded, resumable), hands
// each trial to a Runner and reads the trial's metrics back from its
// directory, so any trial directory kbf wrote can be benchmarked again
// offline.
package bench

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/kbf-project/kbf/internal/regfile"
	"github.com/kbf-project/kbf/results"
)

// Example is a scenario file, as docs/ci-gate.md and kbf bench --help show it.
const Example = `# kbf bench FILE: every scenario runs trials times, interleaved (A B A B ...).
trials: 6
fresh: false              # true: a fresh cluster for every trial
scenarios:
  - name: sigkill
    fault: sigkill        # sigkill, sigterm or pause
    broker: k1            # the broker to fault, by service name
    duration: 30s         # how long each trial probes
    fault_after: 8s       # when, after the probe starts, the fault comes
    return_after: 0s      # a pause or a cut undone this long after it began (a hiccup); 0: at recovery
    settle: 5s            # probing ends this long after the cluster recovered (0: at duration)
    acks: all             # the probe's acks: all or 1
    interval: 20ms        # time between two records of one partition
  - name: sigterm
    fault: sigterm
  - name: session
    fault: sigkill
    sweep:                # one setting over values: a server property
      key: broker.session.timeout.ms     # (NODE:key for one node) or client.<kbf run flag>
      values: [6000, 9000]
    config:               # --config pairs for every trial of the scenario
      - broker.heartbeat.interval.ms=1000
# Also per scenario: compose (a compose file, as -f) and its project_name,
# brokers, controllers, failback (true: the broker brought back with the
# probe running and the minute after the election probed, as --failback),
# image (a Kafka image) or kafka_version (4.0.2: kbf/kafka:4.0.2 when make
# image KAFKA_VERSION=4.0.2 built it here, else apache/kafka:4.0.2),
# client (a map of kbf run's probe flags, e.g. retry-backoff: 100ms, kip951: false),
# clients (the clients side by side, e.g. [franz-go, librdkafka, java]) and
# client_settings (each external client's own settings, e.g.
# java: {retry.backoff.ms: 50}),
# target (k8s: a Kafka in Kubernetes, found by namespace and selector, its
# broker a pod, as kbf run --target k8s; docker, the default: kbf's own).
# A scenario with fault: external measures a cluster kbf did not start and
# does not fault (kbf run --fault external): bootstrap (its addresses),
# on_ready (the command that injects each trial's fault, run in this file's
# directory once the baseline is healthy, not waited for: its failure is
# reported with its exit status, and what of it still runs when the trial
# ends is ended; it must let the cluster heal, as Kubernetes restarts a
# killed pod), and optionally
# command_config, logs or logs_command (run in this file's directory too),
# ready_file and heal_margin.
# A scenario on another cluster (compose file, brokers, controllers, image)
# than the trial before it takes that one down first; scenarios whose node
# settings differ keep a cluster each, side by side (kbf bench --clusters).
`

// MaxTrials bounds the trials of a scenario: a benchmark's plan holds every
// trial, and a thousand trials of a minute are already most of a day.
const MaxTrials = 1000

// File is a benchmark: its scenarios and how many trials of each.
type File struct {
	// Trials is the number of trials of every scenario, and of every value
	// of a sweep.
	Trials int `yaml:"trials" json:"trials"`
	// Fresh asks for a fresh cluster for every trial.
	Fresh     bool       `yaml:"fresh" json:"fresh,omitempty"`
	Scenarios []Scenario `yaml:"scenarios" json:"scenarios"`
}

// Scenario is one fault against one cluster and probe. Zero fields take
// kbf run's defaults.
type Scenario struct {
	Name       string        `yaml:"name" json:"name"`
	Fault      string        `yaml:"fault" json:"fault"`
	Broker     string        `yaml:"broker" json:"broker,omitempty"`
	Duration   time.Duration `yaml:"duration" json:"duration,omitempty"`
	FaultAfter time.Duration `yaml:"fault_after" json:"fault_after,omitempty"`
	// ReturnAfter is kbf run --return-after: how long a pause or a cut
	// lasts, undone with the probe still running (a hiccup of that
	// length); two-brokers' second broker's return. Zero: kbf run's.
	ReturnAfter time.Duration `yaml:"return_after" json:"return_after,omitempty"`
	// Settle is kbf run --settle: nil takes its default, 0 probes for the
	// whole duration.
	Settle *time.Duration `yaml:"settle" json:"settle,omitempty"`
	// Failback is kbf run --failback: the broker brought back with the
	// probe running, and the minute after the election probed.
	Failback bool          `yaml:"failback" json:"failback,omitempty"`
	Acks     string        `yaml:"acks" json:"acks,omitempty"`
	Interval time.Duration `yaml:"interval" json:"interval,omitempty"`
	// Config are server properties, KEY=VALUE on every node or
	// NODE:KEY=VALUE on one, as kbf run --config takes them.
	Config []string `yaml:"config" json:"config,omitempty"`
	// Compose is a compose file to run the cluster from, as kbf run -f.
	Compose string `yaml:"compose" json:"compose,omitempty"`
	// ProjectName is Compose's project, as docker compose -p.
	ProjectName string `yaml:"project_name" json:"project_name,omitempty"`
	// CommandConfig is a Kafka client properties file securing every
	// client, as kbf run --command-config takes it; ReadFile makes a
	// relative one relative to the scenario file.
	CommandConfig string `yaml:"command_config" json:"command_config,omitempty"`
	Brokers       int    `yaml:"brokers" json:"brokers,omitempty"`
	Controllers   int    `yaml:"controllers" json:"controllers,omitempty"`
	// Image is the Kafka image the scenario's cluster runs, over kbf
	// bench --image; KafkaVersion (4.0.2) says it by version instead
	// (KafkaImage). A scenario on another image than the trial before it
	// gets a cluster of its own.
	Image        string `yaml:"image" json:"image,omitempty"`
	KafkaVersion string `yaml:"kafka_version" json:"kafka_version,omitempty"`
	// Client are probe settings by kbf run's flag name (retry-backoff: 100ms).
	Client map[string]string `yaml:"client" json:"client,omitempty"`
	// Clients are the clients that probe side by side, as kbf run
	// --clients takes them; empty is franz-go alone.
	Clients []string `yaml:"clients" json:"clients,omitempty"`
	// ClientSettings are the external clients' settings by their own
	// names, per client (librdkafka: {retry.backoff.ms: "50"}), as kbf run
	// --client-set takes them.
	ClientSettings map[string]map[string]string `yaml:"client_settings" json:"client_settings,omitempty"`
	// Bootstrap, Logs, LogsCommand, OnReady, ReadyFile and HealMargin are
	// fault external's, as kbf run's flags of those names take them: a
	// cluster kbf did not start, reached at Bootstrap, and faulted by
	// OnReady, the command that injects each trial's fault. ReadFile makes
	// a relative Logs or ReadyFile relative to the scenario file.
	Bootstrap   []string      `yaml:"bootstrap" json:"bootstrap,omitempty"`
	Logs        string        `yaml:"logs" json:"logs,omitempty"`
	LogsCommand string        `yaml:"logs_command" json:"logs_command,omitempty"`
	OnReady     string        `yaml:"on_ready" json:"on_ready,omitempty"`
	ReadyFile   string        `yaml:"ready_file" json:"ready_file,omitempty"`
	HealMargin  time.Duration `yaml:"heal_margin" json:"heal_margin,omitempty"`
	// Dir is the scenario file's directory, where OnReady and LogsCommand
	// run, as the file's paths are relative to it; empty: kbf's own.
	Dir string `yaml:"-" json:"-"`
	// Target is where the scenario's cluster lives, as kbf run --target
	// says it: docker (kbf's own, or Compose's; the default) or k8s, a Kafka
	// in Kubernetes, whose pods Namespace and Selector find (over kbf
	// bench's --namespace and --selector). A k8s scenario's broker is a pod.
	Target    string `yaml:"target" json:"target,omitempty"`
	Namespace string `yaml:"namespace" json:"namespace,omitempty"`
	Selector  string `yaml:"selector" json:"selector,omitempty"`
	// NetImage is the image of the ephemeral container that cuts a k8s
	// scenario's broker's links (kbf run --net-image).
	NetImage string `yaml:"net_image" json:"net_image,omitempty"`
	// DiskDelay is disk-slow's kbf run --disk-delay; BrokersLost is
	// power-loss's --brokers-lost (1 or all-replicas).
	DiskDelay   time.Duration `yaml:"disk_delay" json:"disk_delay,omitempty"`
	BrokersLost string        `yaml:"brokers_lost" json:"brokers_lost,omitempty"`
	// StarveCPUs is cpu-starve's kbf run --starve-cpus; Loss is
	// packet-loss's --loss, a percentage ("30%").
	StarveCPUs float64 `yaml:"starve_cpus" json:"starve_cpus,omitempty"`
	Loss       string  `yaml:"loss" json:"loss,omitempty"`
	// Fresh is the file's Fresh, for the runner's sake.
	Fresh bool   `yaml:"-" json:"fresh,omitempty"`
	Sweep *Sweep `yaml:"sweep" json:"sweep,omitempty"`
}

// FaultExternal is the fault a scenario names when something else breaks
// the cluster (kbf run --fault external).
const FaultExternal = "external"

// Sweep varies one setting of a scenario over values.
type Sweep struct {
	// Key is a server property (NODE:KEY for one node), or client.FLAG for
	// a probe setting.
	Key    string   `yaml:"key" json:"key"`
	Values []string `yaml:"values" json:"values"`
}

// ClientPrefix marks a sweep key that is a probe setting.
const ClientPrefix = "client."

// AcksOrDefault returns the scenario's acks, "all" when unset.
func (s Scenario) AcksOrDefault() string {
	if s.Acks == "" {
		return "all"
	}
	return s.Acks
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// versionRE is a Kafka release: 4.0.2, 3.9.1, 4.1.0-rc1.
var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// Images by Kafka version: the one make image builds offline, else the
// project's own on Docker Hub.
const (
	OfflineRepo = "kbf/kafka"
	PublicRepo  = "apache/kafka"
)

// KafkaImage is the image s's cluster runs, or "" for kbf bench's own:
// Image as given, or for KafkaVersion the image make image built of it
// when local says it is here, else the public one.
func (s Scenario) KafkaImage(local func(image string) bool) string {
	switch {
	case s.Image != "":
		return s.Image
	case s.KafkaVersion == "":
		return ""
	}
	if img := OfflineRepo + ":" + s.KafkaVersion; local != nil && local(img) {
		return img
	}
	return PublicRepo + ":" + s.KafkaVersion
}

// Parse reads a scenario file. Unknown keys are refused, so a misspelt
// setting is not silently left at its default.
func Parse(r io.Reader, name string) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var f File
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty: want trials and scenarios (kbf bench --help shows an example)", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := f.Validate(); err != nil {
		return nil, inFile(name, err)
	}
	return &f, nil
}

// inFile names the file on each line of err: Validate's errors joined, one
// per bad field, each stays a line of its own.
func inFile(name string, err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return fmt.Errorf("%s: %w", name, err)
	}
	var errs []error
	for _, e := range j.Unwrap() {
		errs = append(errs, fmt.Errorf("%s: %w", name, e))
	}
	return errors.Join(errs...)
}

// ReadFile reads the scenario file at path.
func ReadFile(path string) (*File, error) {
	fh, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := Parse(fh, path)
	if err != nil {
		return nil, err
	}
	// A scenario file names its files as a compose file names its own:
	// from where the file is, wherever kbf is run from.
	dir := filepath.Dir(path)
	for i := range f.Scenarios {
		s := &f.Scenarios[i]
		for _, p := range []*string{&s.CommandConfig, &s.Logs, &s.ReadyFile} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(dir, *p)
			}
		}
		s.Dir = dir
	}
	return f, nil
}

// Validate checks what can be checked without a cluster; what a runner
// cannot do yet it refuses itself (see Checker).
func (f *File) Validate() error {
	if f.Trials == 0 {
		return fmt.Errorf("no trials: say how many of each scenario, e.g. trials: 6 (6 or more for a 95%% interval; with --until-decided the most a side runs)")
	}
	if f.Trials < 1 || f.Trials > MaxTrials {
		return fmt.Errorf("trials %d: want 1 to %d (6 or more for a 95%% interval)", f.Trials, MaxTrials)
	}
	if len(f.Scenarios) == 0 {
		return errors.New("no scenarios: want at least one under scenarios:")
	}
	seen := map[string]bool{}
	for i := range f.Scenarios {
		s := &f.Scenarios[i]
		s.Fresh = f.Fresh
		where := fmt.Sprintf("scenario %d", i+1)
		if s.Name != "" {
			where = fmt.Sprintf("scenario %q", s.Name)
		}
		switch {
		case s.Name == "":
			return fmt.Errorf("%s: no name", where)
		case !nameRE.MatchString(s.Name):
			return fmt.Errorf("%s: a name is letters, digits, '.', '_' and '-'", where)
		case seen[s.Name]:
			return fmt.Errorf("%s: named twice", where)
		case s.Fault == "":
			return fmt.Errorf("%s: no fault (sigkill, sigterm or pause)", where)
		case s.Duration < 0 || s.FaultAfter < 0 || s.ReturnAfter < 0 || s.Interval < 0 || (s.Settle != nil && *s.Settle < 0):
			return fmt.Errorf("%s: durations must be positive", where)
		case s.Duration > 0 && s.FaultAfter >= s.Duration:
			return fmt.Errorf("%s: fault_after %v must be within duration %v", where, s.FaultAfter, s.Duration)
		case s.Acks != "" && s.Acks != "all" && s.Acks != "1":
			return fmt.Errorf("%s: acks %q: want all or 1", where, s.Acks)
		case s.Brokers < 0 || s.Controllers < 0:
			return fmt.Errorf("%s: brokers and controllers must be positive", where)
		case s.Image != "" && s.KafkaVersion != "":
			return fmt.Errorf("%s: image %q and kafka_version %q: give one (kafka_version names the image)", where, s.Image, s.KafkaVersion)
		case s.KafkaVersion != "" && !versionRE.MatchString(s.KafkaVersion):
			return fmt.Errorf("%s: kafka_version %q: want a release such as 4.0.2", where, s.KafkaVersion)
		case s.Image != "" && strings.ContainsFunc(s.Image, unicode.IsSpace):
			return fmt.Errorf("%s: image %q: want an image reference such as apache/kafka:4.0.2", where, s.Image)
		}
		seen[s.Name] = true
		if err := cmp.Or(s.diskProblem(where), s.hiccupProblem(where)); err != nil { // disk.go
			return err
		}
		if errs := s.externalProblems(where); len(errs) > 0 {
			return errors.Join(errs...)
		}
		for _, kv := range s.Config {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return fmt.Errorf("%s: config %q: want KEY=VALUE or NODE:KEY=VALUE", where, kv)
			}
		}
		if sw := s.Sweep; sw != nil {
			switch {
			case sw.Key == "":
				return fmt.Errorf("%s: sweep: no key", where)
			case len(sw.Values) < 2:
				return fmt.Errorf("%s: sweep of %s: want at least two values", where, sw.Key)
			case strings.ContainsAny(sw.Key, "/= "):
				return fmt.Errorf("%s: sweep key %q: no '/', '=' or space", where, sw.Key)
			case results.IsSecretKey(sw.Key[strings.IndexByte(sw.Key, ':')+1:]):
				// Its values would name the variants and their directories.
				return fmt.Errorf("%s: sweep key %q holds a secret, which kbf never records; sweep another setting", where, sw.Key)
			}
			vals := map[string]bool{}
			for _, v := range sw.Values {
				if v == "" || strings.ContainsAny(v, "/ ") || vals[v] {
					return fmt.Errorf("%s: sweep of %s: value %q empty, repeated or holding '/' or a space", where, sw.Key, v)
				}
				vals[v] = true
			}
		}
	}
	dirs := map[string]string{}
	for _, v := range f.Variants() {
		if other, ok := dirs[v.Dir()]; ok {
			return fmt.Errorf("%s and %s would share the directory %s: rename one", other, v.Name(), v.Dir())
		}
		dirs[v.Dir()] = v.Name()
	}
	return nil
}

// externalProblems are what is wrong with the scenario's external fault
// settings, one error per field: with fault external, a cluster to reach,
// a way to inject and nothing that asks kbf to run the cluster; without
// it, none of fault external's fields.
func (s *Scenario) externalProblems(where string) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(where+": "+format, a...)) }
	if s.Fault != FaultExternal {
		for _, f := range []struct {
			key string
			set bool
		}{{"bootstrap", len(s.Bootstrap) > 0}, {"logs", s.Logs != ""}, {"logs_command", s.LogsCommand != ""},
			{"on_ready", s.OnReady != ""}, {"ready_file", s.ReadyFile != ""}, {"heal_margin", s.HealMargin != 0}} {
			if f.set {
				bad("%s is fault external's; fault %s runs on kbf's cluster", f.key, s.Fault)
			}
		}
		return errs
	}
	if len(s.Bootstrap) == 0 {
		bad("bootstrap: fault external needs the cluster's addresses (bootstrap: [host:port, …])")
	}
	for _, a := range s.Bootstrap {
		if host, port, err := net.SplitHostPort(a); err != nil || host == "" || !validPort(port) {
			bad("bootstrap %q: want host:port", a)
		}
	}
	if s.OnReady == "" && s.ReadyFile == "" {
		bad("on_ready: fault external needs a command that injects each trial's fault (or a ready_file a script waits for)")
	}
	if s.Logs != "" && s.LogsCommand != "" {
		bad("logs and logs_command: give one")
	}
	if s.HealMargin < 0 {
		bad("heal_margin %v: must not be negative", s.HealMargin)
	}
	if s.Broker != "" {
		bad("broker %s: the injector picks the broker of an external fault; kbf learns it from the cluster", s.Broker)
	}
	// What sets up kbf's own cluster has nothing to act on.
	for _, f := range []struct {
		key string
		set bool
	}{{"compose", s.Compose != ""}, {"project_name", s.ProjectName != ""}, {"brokers", s.Brokers != 0},
		{"controllers", s.Controllers != 0}, {"image", s.Image != ""}, {"kafka_version", s.KafkaVersion != ""},
		{"config", len(s.Config) > 0}, {"fresh", s.Fresh}} {
		if f.set {
			bad("%s: kbf does not run an external scenario's cluster; drop it", f.key)
		}
	}
	if s.Sweep != nil && !strings.HasPrefix(s.Sweep.Key, ClientPrefix) {
		bad("sweep of %s: kbf sets no server property on an external scenario's cluster; sweep a client.FLAG", s.Sweep.Key)
	}
	return errs
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 65536
}

// FromRun is the one-scenario benchmark of kbf bench without a FILE.
func FromRun(s Scenario, trials int) (*File, error) {
	if s.Name == "" {
		s.Name = s.Fault
	}
	f := &File{Trials: trials, Fresh: s.Fresh, Scenarios: []Scenario{s}}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// Masked returns a copy of f with its secrets hidden (results.MaskSetting):
// the server properties of config: and sweep:, the clients' settings and
// the commands it runs, as bench-state.json records the file.
func (f *File) Masked() *File {
	if f == nil {
		return nil
	}
	c := *f
	c.Scenarios = make([]Scenario, len(f.Scenarios))
	for i, s := range f.Scenarios {
		s.Config = maskArgs(s.Config)
		s.Client = maskMap(s.Client)
		if s.ClientSettings != nil {
			cs := make(map[string]map[string]string, len(s.ClientSettings))
			for k, m := range s.ClientSettings {
				cs[k] = maskMap(m)
			}
			s.ClientSettings = cs
		}
		s.OnReady, s.LogsCommand = results.MaskLine(s.OnReady), results.MaskLine(s.LogsCommand)
		if sw := s.Sweep; sw != nil {
			key := sw.Key
			if i := strings.IndexByte(key, ':'); i >= 0 {
				key = key[i+1:] // NODE:KEY
			}
			vs := make([]string, len(sw.Values))
			for j, v := range sw.Values {
				vs[j] = results.MaskSetting(key, v)
			}
			s.Sweep = &Sweep{Key: sw.Key, Values: vs}
		}
		c.Scenarios[i] = s
	}
	return &c
}

func maskArgs(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = results.MaskArg(a)
	}
	return out
}

func maskMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = results.MaskSetting(k, v)
	}
	return out
}
