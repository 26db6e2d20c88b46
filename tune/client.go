package tune

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/probe"
)

// knob is a probe setting the grid may vary: one that the analysis names
// as bounding a phase of the producer's stall (package analysis's
// bounds: the producer's learning the new leader, metadata_min_age +
// retry_backoff_max; a request to a broker that stopped answering,
// produce_request_timeout + request_timeout_overhead). Name is kbf run's
// flag, and the key of a bench scenario's client: map.
type knob struct {
	Name string
	// What names the values and Bounds says which phase the setting
	// bounds, for the flag's usage.
	What, Bounds string
	// Silent is true for a setting that bounds only the stall of a broker
	// that stops answering with its connections open (frozen or cut): a
	// SIGKILLed broker's connections close at once, and no request waits
	// out its timeout.
	Silent bool
}

// knobs are the client settings kbf tune grids, in the order of their
// columns.
var knobs = []knob{
	{Name: "metadata-min-age", What: "metadata min ages", Bounds: "finding a new leader"},
	{Name: "retry-backoff", What: "first retry backoffs", Bounds: "a retried request's wait"},
	{Name: "retry-backoff-max", What: "largest retry backoffs", Bounds: "finding a new leader"},
	{Name: "produce-timeout", What: "produce request timeouts", Bounds: "a request to a frozen or cut leader", Silent: true},
	{Name: "request-timeout-overhead", What: "request timeout overheads", Bounds: "a request to a frozen or cut leader", Silent: true},
}

// ClientList is one client setting of the grid and the values to try.
type ClientList struct {
	Name   string
	Values []time.Duration
}

// ClientValue is one client setting at one point: --metadata-min-age 1s.
type ClientValue struct {
	Name  string
	Value time.Duration
}

// Flag spells the setting as kbf run's flag: --metadata-min-age 1s.
func (c ClientValue) Flag() string { return "--" + c.Name + " " + c.Value.String() }

// ClientFlags spells a point's client settings as kbf run's flags.
func ClientFlags(cs []ClientValue) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Flag()
	}
	return strings.Join(out, " ")
}

// durations is a client list's flag value: comma-separated durations,
// added to when the flag is given again.
type durations struct {
	p   *[]time.Duration
	set bool
}

func (d *durations) Set(s string) error {
	var vs []time.Duration
	for _, f := range strings.Split(s, ",") {
		v, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("%q: want durations such as 100ms,1s", f)
		}
		vs = append(vs, v)
	}
	if d.set {
		vs = append(*d.p, vs...)
	}
	*d.p, d.set = vs, true
	return nil
}

func (d *durations) String() string {
	s := make([]string, len(*d.p))
	for i, v := range *d.p {
		s[i] = v.String()
	}
	return "[" + strings.Join(s, ",") + "]"
}

func (*durations) Type() string { return "durationSlice" }

// addClientFlags makes each knob's flag on fs a list, the grid's: a flag
// kbf run takes with one value (probe.Config.AddFlags) takes several in
// kbf tune, each value a row of the answer. A flag fs already has (the
// probe's) is taken over, its value no longer the probe's: every
// scenario of the grid carries the grid's value instead.
func (f *Flags) addClientFlags(fs *pflag.FlagSet) {
	def := probe.Defaults()
	f.Client = make([]ClientList, len(knobs))
	for i, k := range knobs {
		f.Client[i].Name = k.Name
		v := &durations{p: &f.Client[i].Values}
		usage := fmt.Sprintf("the probe's %s to try, a row each, crossed with --session (comma-separated or repeated); they bound %s", k.What, k.Bounds)
		if k.Silent {
			usage += ": several need --death sigkill,pause or isolate"
		}
		st, _ := probe.LookupSetting(k.Name)
		dv := st.Value(&def).String()
		if fl := fs.Lookup(k.Name); fl != nil {
			fl.Value, fl.Usage, fl.DefValue = v, usage, dv
			continue
		}
		fs.VarPF(v, k.Name, "", usage).DefValue = dv
	}
}

// given are the client lists the flags gave, in the knobs' order.
func given(ls []ClientList) []ClientList {
	var out []ClientList
	for _, l := range ls {
		if len(l.Values) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// clientCombos are every combination of the lists' values, the first
// list's slowest-varying, each in the lists' order; one empty combination
// without lists.
func clientCombos(ls []ClientList) [][]ClientValue {
	out := [][]ClientValue{nil}
	for _, l := range ls {
		var next [][]ClientValue
		for _, c := range out {
			for _, v := range l.Values {
				next = append(next, append(slices.Clone(c), ClientValue{Name: l.Name, Value: v}))
			}
		}
		out = next
	}
	return out
}

// validateClients says in one line what is wrong with the client lists:
// a value given twice, a list that changes nothing the trials measure, or
// a combination franz-go refuses (probe.Config.Validate: its own limits,
// such as a metadata min age of at least 10ms), checked on the probe's
// defaults before the first trial.
func (g *Grid) validateClients() error {
	silent := g.silentDeath()
	for _, l := range given(g.Clients) {
		k, ok := lookupKnob(l.Name)
		if !ok {
			return fmt.Errorf("--%s: kbf tune grids only %s", l.Name, knobNames())
		}
		for i, v := range l.Values {
			if slices.Contains(l.Values[i+1:], v) {
				return fmt.Errorf("--%s %v given twice", l.Name, v)
			}
		}
		if k.Silent && len(l.Values) > 1 && !silent {
			return fmt.Errorf("--%s %s: it bounds only the stall of a broker that stops answering with its connections open; add --death sigkill,pause (a SIGKILLed broker's connections close at once, and no request waits out its timeout)",
				l.Name, durationsText(l.Values))
		}
	}
	for _, c := range clientCombos(given(g.Clients)) {
		if _, err := clientConfig(c); err != nil {
			return fmt.Errorf("%s: %w", ClientFlags(c), err)
		}
	}
	return nil
}

// clientConfig is the probe's defaults with cs over them, as a scenario's
// client: settings are, checked as the probe checks its settings.
func clientConfig(cs []ClientValue) (probe.Config, error) {
	c := probe.Defaults()
	for _, v := range cs {
		st, ok := probe.LookupSetting(v.Name)
		if !ok {
			return c, fmt.Errorf("no probe setting %s", v.Name)
		}
		if err := st.Value(&c).Set(v.Value.String()); err != nil {
			return c, err
		}
	}
	return c, c.Validate()
}

func lookupKnob(name string) (knob, bool) {
	i := slices.IndexFunc(knobs, func(k knob) bool { return k.Name == name })
	if i < 0 {
		return knob{}, false
	}
	return knobs[i], true
}

func knobNames() string {
	s := make([]string, len(knobs))
	for i, k := range knobs {
		s[i] = "--" + k.Name
	}
	return strings.Join(s, ", ")
}

func durationsText(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return strings.Join(s, ",")
}

// clientSlug is a point's client settings in its scenarios' names:
// -metadata-min-age-1s-retry-backoff-max-250ms.
func clientSlug(cs []ClientValue) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "-%s-%v", c.Name, c.Value)
	}
	return b.String()
}

// clientMap is a scenario's client: settings, the grid's own (Grid.Client)
// and the point's.
func clientMap(common map[string]string, cs []ClientValue) map[string]string {
	if len(cs) == 0 {
		return common
	}
	m := make(map[string]string, len(common)+len(cs))
	for k, v := range common {
		m[k] = v
	}
	for _, c := range cs {
		m[c.Name] = c.Value.String()
	}
	return m
}

// gentler reports whether point a asks less of the cluster than b: a
// longer session (tolerating more), then, setting by setting, a longer
// client wait (fewer requests, fewer given up on a broker merely slow).
func gentler(a, b Point) bool {
	if a.Session != b.Session {
		return a.Session > b.Session
	}
	for i := range min(len(a.Client), len(b.Client)) {
		if a.Client[i].Value != b.Client[i].Value {
			return a.Client[i].Value > b.Client[i].Value
		}
	}
	return false
}

// clientOf is the value of the named client setting at p, the probe's
// default where the grid does not set it.
func clientOf(p Point, name string) time.Duration {
	for _, c := range p.Client {
		if c.Name == name {
			return c.Value
		}
	}
	c := probe.Defaults()
	st, _ := probe.LookupSetting(name)
	d, _ := time.ParseDuration(st.Value(&c).String())
	return d
}
