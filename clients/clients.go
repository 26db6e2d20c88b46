// Package clients knows the Kafka clients kbf can probe a cluster with:
// franz-go, which is kbf's own in-process probe (package probe), and the
// reference probes for librdkafka and the Java client, separate programs
// built from clients/librdkafka and clients/java. It locates a built
// reference probe, runs it as a subprocess for a trial (Start, then Stop or
// Wait) and reads the client.json it leaves beside its probe.csv and
// client.log. The probes' command line and files are specified in
// clients/README.md.
package clients

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/internal/regfile"
	"github.com/kbf-project/kbf/results"
)

// Name names a client as the command line spells it.
type Name string

// The clients kbf knows.
const (
	FranzGo    Name = "franz-go"
	Librdkafka Name = "librdkafka"
	Java       Name = "java"
)

// Client describes one client and, for an external one, how it is built.
type Client struct {
	Name Name
	// External is true for a probe that runs as its own process.
	External bool
	// File is the built probe's file name in the probe directory.
	File string
	// MakeTarget builds it.
	MakeTarget string
	// Library is what the probe is built on, for messages and help.
	Library string
}

var known = []Client{
	{Name: FranzGo, Library: "github.com/twmb/franz-go, in kbf's own process"},
	{Name: Librdkafka, External: true, File: "kbf-probe-librdkafka", MakeTarget: "probe-librdkafka",
		Library: "librdkafka through github.com/confluentinc/confluent-kafka-go/v2"},
	{Name: Java, External: true, File: "kbf-probe-java.jar", MakeTarget: "probe-java",
		Library: "org.apache.kafka:kafka-clients, run with java -jar"},
}

// Known returns the clients kbf knows, franz-go first.
func Known() []Client { return slices.Clone(known) }

// ErrUnknown is reported for a client name kbf does not know.
var ErrUnknown = errors.New("unknown client")

// Lookup returns the client called name.
func Lookup(name Name) (Client, error) {
	for _, c := range known {
		if c.Name == name {
			return c, nil
		}
	}
	return Client{}, fmt.Errorf("%w %q: want one of %s", ErrUnknown, name, knownNames())
}

func knownNames() string {
	names := make([]string, len(known))
	for i, c := range known {
		names[i] = string(c.Name)
	}
	return strings.Join(names, ", ")
}

// ParseList reads a comma-separated list of client names, such as a
// --clients flag's "franz-go,librdkafka,java", in the order given. A name
// given twice, an empty name or an unknown one is an error.
func ParseList(s string) ([]Name, error) {
	var out []Name
	for f := range strings.SplitSeq(s, ",") {
		n := Name(strings.TrimSpace(f))
		if n == "" {
			return nil, fmt.Errorf("empty client name in %q: want names such as %s", s, knownNames())
		}
		if _, err := Lookup(n); err != nil {
			return nil, err
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("client %s given twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// InfoFile is the file a reference probe writes beside probe.csv and
// client.log: which client ran, its version and its settings.
const InfoFile = results.ClientInfoFile

// Info is a reference probe's client.json.
type Info struct {
	Client  Name   `json:"client"`
	Version string `json:"version"` // the client library's own version
	Library string `json:"library"` // the binding and its version
	// Producer and Consumer are the settings in effect, by the client's
	// own names (librdkafka's or the Java client's).
	Producer map[string]string `json:"producer"`
	Consumer map[string]string `json:"consumer"`
	// Group are the group reader's settings by the client's own names;
	// nil without one (Spec.Group).
	Group        map[string]string `json:"group,omitempty"`
	Topic        string            `json:"topic"`
	Partitions   []int32           `json:"partitions"`
	Interval     Duration          `json:"interval"`
	Acks         string            `json:"acks"`
	RunID        string            `json:"run_id"`
	StartOffsets map[int32]int64   `json:"start_offsets"`
	Drain        Duration          `json:"drain"`
	Started      time.Time         `json:"started"`
	Ended        time.Time         `json:"ended,omitzero"`
	// LongestSendGap is the longest time between two sends to one
	// partition: the probe's own stalls.
	LongestSendGap time.Duration `json:"longest_send_gap_ns,omitempty"`
}

// Duration is a time.Duration written in JSON as Go writes it ("20ms").
type Duration time.Duration

// MarshalJSON writes d as Go's text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads Go's text of a duration.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// ReadInfo reads dir/client.json. A probe writes it once it knows where
// each partition's log ends, before its first send, and again when it ends.
func ReadInfo(dir string) (*Info, error) {
	path := filepath.Join(dir, InfoFile)
	b, err := regfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var info Info
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if info.Client == "" {
		return nil, fmt.Errorf("%s: no client named", path)
	}
	return &info, nil
}

// WriteInfo writes info as dir/client.json, indented, all at once: a
// reader never sees half of it. The librdkafka reference probe writes it
// through this; the Java probe writes the same fields itself.
func WriteInfo(dir string, info *Info) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", InfoFile, err)
	}
	err = results.WriteFileAtomic(filepath.Join(dir, InfoFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", InfoFile, err)
	}
	return nil
}

// Settings returns the producer's and consumer's settings as one map, the
// consumer's prefixed "consumer." and the group reader's "group." where
// they differ from the producer's, with client, the client and its
// version: the shape of the franz-go probe's results.Probe.Client.
func (i *Info) Settings() map[string]string {
	out := make(map[string]string, len(i.Producer)+len(i.Consumer)+len(i.Group)+1)
	for k, v := range i.Producer {
		out[k] = v
	}
	for k, v := range i.Consumer {
		if out[k] != v {
			out["consumer."+k] = v
		}
	}
	for k, v := range i.Group {
		if out[k] != v {
			out["group."+k] = v
		}
	}
	out["client"] = strings.TrimSpace(string(i.Client) + " " + i.Version)
	return out
}

// Probe returns what the info says in the shape of a trial's metadata, so
// a reference probe's directory can get a meta.json of its own.
func (i *Info) Probe() results.Probe {
	return results.Probe{
		Topic:          i.Topic,
		Partitions:     slices.Clone(i.Partitions),
		Interval:       time.Duration(i.Interval),
		Acks:           i.Acks,
		StartOffsets:   maps.Clone(i.StartOffsets),
		Client:         i.Settings(),
		RunID:          i.RunID,
		LongestSendGap: i.LongestSendGap,
	}
}

// MaskInfo rewrites dir/client.json with the secrets among its settings
// hidden (results.MaskSetting), when it shows any: the reference probes
// leave out the settings they know hold one, and this catches those they
// do not (an option a newer Kafka adds). Every other field is kept as
// written. A file with no secret is left untouched.
func MaskInfo(dir string) error {
	path := filepath.Join(dir, InfoFile)
	b, err := regfile.ReadFile(path)
	if err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	changed := false
	for _, k := range []string{"producer", "consumer", "group"} {
		var m map[string]string
		if raw[k] == nil || json.Unmarshal(raw[k], &m) != nil {
			continue
		}
		masked := results.MaskSettings(maps.Clone(m))
		if maps.Equal(m, masked) {
			continue
		}
		if raw[k], err = json.Marshal(masked); err != nil {
			return err
		}
		changed = true
	}
	if !changed {
		return nil
	}
	out, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(out, '\n'))
		return err
	})
}
