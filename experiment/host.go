package experiment

import (
	"errors"
	"fmt"
	"os"
	"runtime"
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
	}
	return s, errors.Join(errs...)
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
// processes competing with the trial.
type hostMeter struct {
	root  string
	start hostSample
	err   error
	// cpu follows the nodes' counters while the trial runs; nil when the
	// cluster's CPU is not measured.
	cpu  *clusterCPU
	done chan struct{}
	wg   sync.WaitGroup
}

// clusterEvery is how often the nodes' CPU counters are read: a node's
// counter ends with its container and starts anew with a restart, so what
// it used after the last reading before it stopped is lost (at most this
// long of one node's time), and a restart is seen as a counter gone back.
const clusterEvery = time.Second

func startHost(root string, cluster func() (map[string]time.Duration, error)) *hostMeter {
	if root == "" {
		root = "/proc"
	}
	m := &hostMeter{root: root}
	if cluster != nil {
		m.cpu = &clusterCPU{read: cluster, last: map[string]time.Duration{}}
		m.err = m.cpu.sample()
		m.done = make(chan struct{})
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
					m.cpu.sample() // a failed reading is made up by the next
				}
			}
		}()
	}
	m.start, m.err = readHostJoin(root, m.err)
	return m
}

func readHostJoin(root string, prev error) (hostSample, error) {
	s, err := readHost(root)
	return s, errors.Join(prev, err)
}

func (m *hostMeter) stop() *results.Host {
	s, err := readHostJoin(m.root, m.err)
	var used time.Duration
	if m.cpu != nil {
		close(m.done)
		m.wg.Wait()
		if cerr := m.cpu.sample(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		used = m.cpu.used
	}
	h := hostLoad(m.start, s, runtime.NumCPU(), err)
	h.Cluster = used
	h.Others = max(h.Others-used, 0)
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
// or of one first seen. The first sample only sets the start.
func (c *clusterCPU) sample() error {
	now, err := c.read()
	if err != nil {
		return fmt.Errorf("the cluster's CPU time: %w", err)
	}
	first := !c.started
	c.started = true
	for svc, v := range now {
		last, ok := c.last[svc]
		switch {
		case first:
		case ok && v >= last:
			c.used += v - last
		default:
			c.used += v
		}
		c.last[svc] = v
	}
	for svc := range c.last {
		if _, ok := now[svc]; !ok {
			delete(c.last, svc) // stopped: its next counter starts at zero
		}
	}
	return nil
}
