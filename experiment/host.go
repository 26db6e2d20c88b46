package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kbf-project/kbf/results"
)

// userHZ is the unit of /proc's CPU times: USER_HZ, 100 on every Linux
// architecture kbf runs on.
const userHZ = 100

// hostSample is one reading of the machine's load from /proc.
type hostSample struct {
	at          time.Time
	load1       float64
	busy, steal int64 // every CPU's, in ticks: busy is user, nice, system, irq and softirq
	self        int64 // this process's user and system time, in ticks
}

// readHost reads /proc under root ("/proc" but in tests).
func readHost(root string) (hostSample, error) {
	s := hostSample{at: time.Now()}
	var errs []error
	if b, err := os.ReadFile(root + "/loadavg"); err != nil {
		errs = append(errs, err)
	} else if f := strings.Fields(string(b)); len(f) == 0 {
		errs = append(errs, errors.New("loadavg: empty"))
	} else if s.load1, err = strconv.ParseFloat(f[0], 64); err != nil {
		errs = append(errs, fmt.Errorf("loadavg: %w", err))
	}
	if b, err := os.ReadFile(root + "/stat"); err != nil {
		errs = append(errs, err)
	} else if err := s.parseStat(string(b)); err != nil {
		errs = append(errs, err)
	}
	if b, err := os.ReadFile(root + "/self/stat"); err != nil {
		errs = append(errs, err)
	} else if err := s.parseSelf(string(b)); err != nil {
		errs = append(errs, err)
	} else {
		s.self += childTicks(root, "self", maxChildDepth)
	}
	return s, errors.Join(errs...)
}

// maxChildDepth bounds how deep childTicks looks: a probe's launcher, the
// probe, what the probe starts.
const maxChildDepth = 4

// childTicks is the CPU time, in ticks, of the live processes pid started
// and theirs: the other clients' probes (a JVM, a librdkafka program) that
// run beside the trial as kbf's children. Their time is kbf's, not other
// processes': /proc/self/stat counts a child's only once it has ended and
// been waited for (cutime, cstime), and a sample while it runs would
// count it as load from outside the trial. Once waited for, its time moves
// from here to kbf's own cutime, so the sum goes on without a jump. What
// cannot be read (a child that ended meanwhile, a kernel without the
// children files) counts nothing.
func childTicks(root, pid string, depth int) int64 {
	if depth == 0 {
		return 0
	}
	files, _ := filepath.Glob(root + "/" + pid + "/task/*/children")
	var sum int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, child := range strings.Fields(string(b)) {
			stat, err := os.ReadFile(root + "/" + child + "/stat")
			if err != nil {
				continue
			}
			var c hostSample
			if c.parseSelf(string(stat)) != nil {
				continue
			}
			sum += c.self + childTicks(root, child, depth-1)
		}
	}
	return sum
}

// parseStat reads the first line of /proc/stat:
//
//	cpu  user nice system idle iowait irq softirq steal guest guest_nice
func (s *hostSample) parseStat(stat string) error {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return fmt.Errorf("stat: first line %.40q is not the cpu total", line)
	}
	v := make([]int64, 8)
	for i := range v {
		n, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil {
			return fmt.Errorf("stat: cpu field %d: %w", i+1, err)
		}
		v[i] = n
	}
	s.busy = v[0] + v[1] + v[2] + v[5] + v[6]
	s.steal = v[7]
	return nil
}

// parseSelf reads utime, stime, cutime and cstime, fields 14 to 17 of
// /proc/self/stat: kbf's own CPU time and that of its children it waited
// for, the other clients' probes, which stop before the trial's end is
// read; the command name in field 2 may hold spaces and parentheses, so
// fields are counted from its closing parenthesis.
func (s *hostSample) parseSelf(stat string) error {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return errors.New("self/stat: no command name")
	}
	f := strings.Fields(stat[i+1:]) // from field 3
	if len(f) < 15 {
		return errors.New("self/stat: too few fields")
	}
	s.self = 0
	for _, v := range f[11:15] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("self/stat: %w", err)
		}
		s.self += n
	}
	return nil
}

// hostLoad is the machine's load between two samples.
func hostLoad(a, b hostSample, cpus int, err error) *results.Host {
	tick := func(n int64) time.Duration { return time.Duration(max(n, 0)) * time.Second / userHZ }
	h := &results.Host{
		CPUs:      cpus,
		LoadStart: a.load1,
		LoadEnd:   b.load1,
		Wall:      b.at.Sub(a.at),
		Self:      tick(b.self - a.self),
		Others:    tick((b.busy - a.busy) - (b.self - a.self)),
		Steal:     tick(b.steal - a.steal),
	}
	if err != nil {
		h.Err = strings.ReplaceAll(err.Error(), "\n", "; ")
	}
	return h
}

// hostMeter measures the machine's load over a trial, and the cluster's
// share of it, so that the CPU the Kafka nodes use is not taken for other
// processes competing with the trial. It samples about once a second, so
// the load can be judged inside the window that decides the stall, and the
// baseline can wait for the cluster's own start-up to settle.
type hostMeter struct {
	root  string
	cpus  int
	start hostSample
	err   error
	// cpu follows the nodes' counters while the trial runs; nil when the
	// cluster's CPU is not measured.
	cpu  *clusterCPU
	done chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	prev    hostSample    // the reading the next sample starts from
	used    time.Duration // the nodes' CPU time up to prev
	pending map[string]time.Duration
	samples []results.HostSample
	stopped bool // stop has taken the load: a reading still running is dropped
}

// clusterEvery is how often the nodes' CPU counters are read: a node's
// counter ends with its container and starts anew with a restart, so what
// it used after the last reading before it stopped is lost (at most this
// long of one node's time), and a restart is seen as a counter gone back.
const clusterEvery = time.Second

// maxHostSamples bounds Host.Samples: past it, neighbouring samples are
// merged, so a long trial keeps coarser samples rather than growing
// meta.json without bound.
const maxHostSamples = 1200

func startHost(root string, cluster func() (map[string]time.Duration, error)) *hostMeter {
	if root == "" {
		root = "/proc"
	}
	m := &hostMeter{root: root, cpus: runtime.NumCPU(), pending: map[string]time.Duration{}, done: make(chan struct{})}
	if cluster != nil {
		m.cpu = &clusterCPU{read: cluster, last: map[string]time.Duration{}}
		_, m.err = m.cpu.sample()
	}
	m.start, m.err = readHostJoin(root, m.err)
	m.prev = m.start
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(clusterEvery)
		defer t.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-t.C:
				m.tick() // a failed reading is made up by the next
			}
		}
	}()
	return m
}

func readHostJoin(root string, prev error) (hostSample, error) {
	s, err := readHost(root)
	return s, errors.Join(prev, err)
}

// tick reads the nodes' counters and /proc, and adds a sample of what was
// used since the last one. A reading that failed in part gives a partial
// sample, as it gives partial totals; the error says so.
func (m *hostMeter) tick() error {
	var errs []error
	if m.cpu != nil {
		d, err := m.cpu.sample()
		errs = append(errs, err)
		m.mu.Lock()
		for n, v := range d {
			m.pending[n] += v
		}
		m.mu.Unlock()
	}
	s, err := readHost(m.root)
	errs = append(errs, err)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return nil
	}
	if m.cpu != nil {
		m.used = m.cpu.used
	}
	h := hostLoad(m.prev, s, m.cpus, nil)
	hs := results.HostSample{At: s.at.UTC(), Self: h.Self, Steal: h.Steal, Others: h.Others}
	if len(m.pending) > 0 {
		hs.Nodes = m.pending
		for _, v := range m.pending {
			hs.Others -= v
		}
		hs.Others = max(hs.Others, 0)
		m.pending = map[string]time.Duration{}
	}
	m.prev = s
	m.samples = append(m.samples, hs)
	if len(m.samples) > maxHostSamples {
		m.samples = mergeSamples(m.samples)
	}
	return errors.Join(errs...)
}

// mergeSamples merges each pair of neighbouring samples into one.
func mergeSamples(ss []results.HostSample) []results.HostSample {
	out := ss[:0]
	for i := 0; i < len(ss); i += 2 {
		a := ss[i]
		if i+1 < len(ss) {
			b := ss[i+1]
			nodes := map[string]time.Duration{}
			for _, x := range []map[string]time.Duration{a.Nodes, b.Nodes} {
				for n, v := range x {
					nodes[n] += v
				}
			}
			a = results.HostSample{At: b.At, Self: a.Self + b.Self, Others: a.Others + b.Others, Steal: a.Steal + b.Steal, Nodes: nodes}
		}
		out = append(out, a)
	}
	return out
}

// snapshot is the load so far, its samples copied, for the baseline.
func (m *hostMeter) snapshot() *results.Host {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &results.Host{CPUs: m.cpus, Start: m.start.at.UTC(), Samples: slices.Clone(m.samples)}
}

// stop ends the meter and returns the load from its start to its last
// reading. It does not wait for another: the nodes' counters take the
// engine about a second to read, and stop comes between the end of
// probing and the restart of the faulted broker, which it would delay as
// long. The load is taken up to the reading before (at most about two
// seconds before the end of probing, in the trial's settle), the nodes'
// and the machine's alike, and a reading still running then is dropped.
// Only a meter that has no reading yet waits for one.
func (m *hostMeter) stop() *results.Host {
	close(m.done)
	var terr error
	m.mu.Lock()
	none := len(m.samples) == 0
	m.mu.Unlock()
	if none {
		m.wg.Wait()
		terr = m.tick()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopped = true
	h := hostLoad(m.start, m.prev, m.cpus, errors.Join(m.err, terr))
	h.Start = m.start.at.UTC()
	h.Cluster = m.used
	h.Others = max(h.Others-m.used, 0)
	h.Samples = slices.Clone(m.samples)
	return h
}

// clusterCPU sums the CPU time the nodes use between readings of their
// counters, through their restarts.
type clusterCPU struct {
	read    func() (map[string]time.Duration, error)
	last    map[string]time.Duration // each running node's last reading
	used    time.Duration
	started bool // the first reading is the start
}

// sample reads the counters and adds what each node used since its last
// reading: all of a counter that went back, which a restart started anew,
// or of one first seen. It returns what each node used since the last
// reading. The first sample only sets the start.
func (c *clusterCPU) sample() (map[string]time.Duration, error) {
	now, err := c.read()
	if err != nil {
		return nil, fmt.Errorf("the cluster's CPU time: %w", err)
	}
	used := map[string]time.Duration{}
	first := !c.started
	c.started = true
	for svc, v := range now {
		last, ok := c.last[svc]
		switch {
		case first:
		case ok && v >= last:
			used[svc] = v - last
		default:
			used[svc] = v
		}
		c.used += used[svc]
		c.last[svc] = v
	}
	for svc := range c.last {
		if _, ok := now[svc]; !ok {
			delete(c.last, svc) // stopped: its next counter starts at zero
		}
	}
	return used, nil
}
