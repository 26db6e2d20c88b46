package compose

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
)

// upFromNothing brings the fake's containers up and forgets the calls.
func upFromNothing(t *testing.T, f *fakeEngine, opts Options) {
	t.Helper()
	c := testCluster(t, opts, f)
	if err := c.upContainers(context.Background(), &UpReport{}); err != nil {
		t.Fatalf("first up: %v", err)
	}
	f.calls = nil
}

func stop(f *fakeEngine, name string, code int) {
	f.containers[name].State = &container.State{Status: container.StateExited, ExitCode: code}
}

func TestUpContainers(t *testing.T) {
	all := []string{"kbf-c1", "kbf-k1", "kbf-k2", "kbf-k3"}
	createStart := func(names ...string) []string {
		var calls []string
		for _, n := range names {
			calls = append(calls, "create "+n, "start "+n)
		}
		return calls
	}
	removeAll := []string{"remove kbf-c1", "remove kbf-k1", "remove kbf-k2", "remove kbf-k3"}

	tests := []struct {
		name    string
		before  func(f *fakeEngine) // nil: nothing exists
		opts    Options
		calls   []string
		reused  bool
		created []string
		started []string
		recreat []string
		removed []string
	}{
		{
			name:    "from nothing",
			calls:   append([]string{"create network kbf"}, createStart(all...)...),
			created: []string{"c1", "k1", "k2", "k3"},
		},
		{
			name:   "healthy stack is reused",
			before: func(f *fakeEngine) { upFromNothing(t, f, Options{}) },
			reused: true,
		},
		{
			name: "stopped broker is started, keeping its data",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				stop(f, "kbf-k2", 137)
			},
			calls:   []string{"start kbf-k2"},
			started: []string{"k2"},
		},
		{
			name: "paused broker is unpaused",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				f.containers["kbf-k1"].State = &container.State{Status: container.StatePaused, Running: true, Paused: true}
			},
			calls:   []string{"unpause kbf-k1"},
			started: []string{"k1"},
		},
		{
			name: "missing broker is created",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				delete(f.containers, "kbf-k3")
			},
			calls:   createStart("kbf-k3"),
			created: []string{"k3"},
		},
		{
			name: "another image name recreates all",
			before: func(f *fakeEngine) {
				f.images[OfflineImage] = "sha256:off"
				upFromNothing(t, f, Options{})
			},
			opts:    Options{Image: OfflineImage},
			calls:   append(removeAll, createStart(all...)...),
			recreat: []string{"c1", "k1", "k2", "k3"},
		},
		{
			name: "rebuilt image recreates all",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				f.images[DefaultImage] = "sha256:new"
			},
			calls:   append(removeAll, createStart(all...)...),
			recreat: []string{"c1", "k1", "k2", "k3"},
		},
		{
			name: "changed broker config recreates that broker",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				f.containers["kbf-k2"].Config.Labels[labelConfigHash] = "old"
				stop(f, "kbf-k1", 143)
			},
			calls:   []string{"remove kbf-k2", "start kbf-k1", "create kbf-k2", "start kbf-k2"},
			started: []string{"k1"},
			recreat: []string{"k2"},
		},
		{
			name: "missing controller recreates the brokers",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				delete(f.containers, "kbf-c1")
			},
			calls:   append(removeAll[1:], createStart(all...)...),
			created: []string{"c1"},
			recreat: []string{"k1", "k2", "k3"},
		},
		{
			name: "container without the project label is recreated",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				delete(f.containers["kbf-k2"].Config.Labels, labelProject)
			},
			calls:   []string{"remove kbf-k2", "create kbf-k2", "start kbf-k2"},
			recreat: []string{"k2"},
		},
		{
			// The disk limit moves single-0 off k1, which a new cluster does.
			name: "a disk limit recreates the cluster",
			opts: Options{DiskLimits: map[string]string{"k1": "64m"}},
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
			},
			calls:   append(removeAll, createStart(all...)...),
			recreat: []string{"c1", "k1", "k2", "k3"},
		},
		{
			// k1 holds the only replica of single-0, which it would
			// come back without: that partition could never be led again.
			name: "changed config of the one-replica topic's broker recreates the cluster",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				f.containers["kbf-k1"].Config.Labels[labelConfigHash] = "old"
			},
			calls:   append(removeAll, createStart(all...)...),
			recreat: []string{"c1", "k1", "k2", "k3"},
		},
		{
			name: "missing network recreates everything",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				clear(f.networks)
			},
			calls:   append(append(removeAll, "create network kbf"), createStart(all...)...),
			recreat: []string{"c1", "k1", "k2", "k3"},
		},
		{
			// c2 and c3 of the old quorum would lead the new c1 astray,
			// and the quorum the brokers knew is gone: all made anew.
			name:    "a smaller quorum removes the controllers that no longer belong",
			before:  func(f *fakeEngine) { upFromNothing(t, f, Options{Controllers: 3}) },
			calls:   append(append([]string{"remove kbf-c2", "remove kbf-c3"}, removeAll...), createStart(all...)...),
			recreat: []string{"c1", "k1", "k2", "k3"},
			removed: []string{"kbf-c2", "kbf-c3"},
		},
		{
			// Partitions with replicas on k4 and k5 would never have a
			// full ISR again: the cluster is made anew.
			name:    "fewer brokers removes the brokers that no longer belong",
			before:  func(f *fakeEngine) { upFromNothing(t, f, Options{Brokers: 5}) },
			calls:   append(append([]string{"remove kbf-k4", "remove kbf-k5"}, removeAll...), createStart(all...)...),
			recreat: []string{"c1", "k1", "k2", "k3"},
			removed: []string{"kbf-k4", "kbf-k5"},
		},
		{
			name: "image missing is pulled",
			before: func(f *fakeEngine) {
				delete(f.images, DefaultImage)
				f.pullGives = "sha256:pulled"
				f.pullStream = `{"status":"Pulling"}` + "\n"
			},
			calls:   append([]string{"pull " + DefaultImage, "create network kbf"}, createStart(all...)...),
			created: []string{"c1", "k1", "k2", "k3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine()
			if tt.before != nil {
				tt.before(f)
			}
			c := testCluster(t, tt.opts, f)
			rep := &UpReport{}
			if err := c.upContainers(context.Background(), rep); err != nil {
				t.Fatalf("upContainers: %v", err)
			}
			if !slices.Equal(f.calls, tt.calls) {
				t.Errorf("calls\n got %q\nwant %q", f.calls, tt.calls)
			}
			if rep.Reused != tt.reused || !slices.Equal(rep.Created, tt.created) ||
				!slices.Equal(rep.Started, tt.started) || !slices.Equal(rep.Recreated, tt.recreat) || !slices.Equal(rep.Removed, tt.removed) {
				t.Errorf("report reused %v created %v started %v recreated %v removed %v; want %v %v %v %v %v",
					rep.Reused, rep.Created, rep.Started, rep.Recreated, rep.Removed, tt.reused, tt.created, tt.started, tt.recreat, tt.removed)
			}
			// Whatever the start, the end is the same: all running as
			// configured, and no other container of the project.
			if len(f.containers) != len(c.Services()) {
				t.Errorf("%d containers after up, want %d: %v", len(f.containers), len(c.Services()), sortedKeys(f.containers))
			}
			for _, svc := range c.Services() {
				ci := f.containers[c.ContainerName(svc)]
				if ci == nil || !ci.State.Running || ci.Config.Labels[labelConfigHash] != c.proj.spec(svc, "").hash() ||
					ci.Image != f.images[c.Image()] {
					t.Errorf("%s not running as configured after up: %+v", svc, ci)
				}
			}
		})
	}
}

func TestUpErrors(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(f *fakeEngine, c *Cluster)
		want    string // the whole message
		wantIs  error
		noCalls bool
	}{
		{
			name:   "engine unreachable",
			setup:  func(f *fakeEngine, _ *Cluster) { f.down = true },
			want:   "cannot reach the Docker engine at unix:///fake.sock: is the Docker engine running? (DOCKER_HOST names another)",
			wantIs: ErrDockerUnreachable,
		},
		{
			name: "port taken",
			setup: func(_ *fakeEngine, c *Cluster) {
				c.portFree = func(host string, port int) error {
					if port == 19093 {
						return errors.New("address already in use")
					}
					return nil
				}
			},
			want: "port 19093 on 127.0.0.1 is in use, and broker k2 needs it: free it or choose another port with KBF_K2_PORT",
		},
		{
			name: "image cannot be pulled",
			setup: func(f *fakeEngine, _ *Cluster) {
				delete(f.images, DefaultImage)
				f.pullErr = errors.New("dial tcp: lookup registry: no such host")
			},
			want: "image apache/kafka:4.3.1 is not here and cannot be pulled (dial tcp: lookup registry: no such host); " +
				"build the offline image with make image and pass --image kbf/kafka:4.3.1 (or set KBF_IMAGE)",
		},
		{
			name: "pull fails in its stream",
			setup: func(f *fakeEngine, _ *Cluster) {
				delete(f.images, DefaultImage)
				f.pullStream = `{"errorDetail":{"message":"manifest unknown"},"error":"manifest unknown"}` + "\n"
			},
			want: "image apache/kafka:4.3.1 is not here and cannot be pulled (manifest unknown); " +
				"build the offline image with make image and pass --image kbf/kafka:4.3.1 (or set KBF_IMAGE)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine()
			c := testCluster(t, Options{}, f)
			tt.setup(f, c)
			// Should the containers phase wrongly pass, Up would wait for
			// brokers that do not exist: fail instead of hanging.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := c.Up(ctx)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Up: error\n %v\nwant\n %s", err, tt.want)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error is not %v", tt.wantIs)
			}
			if strings.Contains(strings.Join(f.calls, ","), "create") {
				t.Errorf("created something before failing: %q", f.calls)
			}
		})
	}
}

func TestDown(t *testing.T) {
	tests := []struct {
		name    string
		before  func(f *fakeEngine)
		removed []string
	}{
		{name: "nothing", removed: nil},
		{
			name:    "whole stack",
			before:  func(f *fakeEngine) { upFromNothing(t, f, Options{}) },
			removed: []string{"kbf-k3", "kbf-k2", "kbf-k1", "kbf-c1", "network kbf"},
		},
		{
			name: "half-made stack",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				delete(f.containers, "kbf-k1")
				delete(f.containers, "kbf-k3")
				stop(f, "kbf-k2", 137)
			},
			removed: []string{"kbf-k2", "kbf-c1", "network kbf"},
		},
		{
			name: "stray project container and unlabelled network",
			before: func(f *fakeEngine) {
				upFromNothing(t, f, Options{})
				delete(f.containers["kbf-k1"].Config.Labels, labelProject)
				extra := *f.containers["kbf-k2"]
				f.containers["kbf-extra"] = &extra
				for id, n := range f.networks {
					n.Labels = nil
					f.networks[id] = n
				}
				f.networks["other"] = network.Summary{ID: "other", Name: "kbfimg"}
			},
			removed: []string{"kbf-k3", "kbf-k2", "kbf-k1", "kbf-c1", "kbf-extra", "network kbf"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine()
			if tt.before != nil {
				tt.before(f)
			}
			c := testCluster(t, Options{}, f)
			removed, err := c.Down(context.Background())
			if err != nil {
				t.Fatalf("Down: %v", err)
			}
			if !slices.Equal(removed, tt.removed) {
				t.Errorf("removed %q, want %q", removed, tt.removed)
			}
			for name := range f.containers {
				t.Errorf("container %s left behind", name)
			}
			for _, n := range f.networks {
				if n.Name != "kbfimg" {
					t.Errorf("network %s left behind", n.Name)
				}
			}
			if _, ok := f.networks["other"]; tt.name == "stray project container and unlabelled network" && !ok {
				t.Errorf("removed another project's network")
			}
		})
	}
}

func TestDownUnreachable(t *testing.T) {
	f := newFakeEngine()
	f.down = true
	c := testCluster(t, Options{}, f)
	if _, err := c.Down(context.Background()); !errors.Is(err, ErrDockerUnreachable) {
		t.Fatalf("Down: %v, want ErrDockerUnreachable", err)
	}
}

func TestContainers(t *testing.T) {
	f := newFakeEngine()
	upFromNothing(t, f, Options{})
	stop(f, "kbf-k1", 137)
	delete(f.containers, "kbf-k3")
	c := testCluster(t, Options{}, f)
	states, err := c.Containers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range states {
		got = append(got, s.Service+":"+s.Status)
	}
	if want := []string{"c1:running", "k1:exited", "k2:running", "k3:missing"}; !slices.Equal(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	if states[1].ExitCode != 137 || states[1].Running {
		t.Errorf("k1: %+v", states[1])
	}
}

func TestKafkaVersion(t *testing.T) {
	f := newFakeEngine()
	f.libs = "jackson-core-2.19.0.jar\nkafka-clients-4.3.1-test.jar\nkafka-clients-4.3.1.jar\nkafka_2.13-4.3.1.jar\n"
	c := testCluster(t, Options{}, f)
	if _, err := c.KafkaVersion(context.Background()); err == nil {
		t.Errorf("KafkaVersion with no container running: no error")
	}
	upFromNothing(t, f, Options{})
	stop(f, "kbf-c1", 0)
	v, err := c.KafkaVersion(context.Background())
	if err != nil || v != "4.3.1" {
		t.Errorf("KafkaVersion = %q, %v; want 4.3.1", v, err)
	}
}

func TestVersionFromLibs(t *testing.T) {
	tests := []struct{ listing, want string }{
		{"kafka-clients-4.3.1.jar", "4.3.1"},
		{"a.jar kafka-clients-4.3.1-test.jar kafka-clients-3.9.0.jar", "3.9.0"},
		{"kafka-clients-4.4.0-SNAPSHOT.jar\n", "4.4.0-SNAPSHOT"},
		{"kafka_2.13-4.3.1.jar kafka-clients.jar", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := versionFromLibs(tt.listing); got != tt.want {
			t.Errorf("versionFromLibs(%q) = %q, want %q", tt.listing, got, tt.want)
		}
	}
}

func TestOfflineFallback(t *testing.T) {
	all := []string{"c1", "k1", "k2", "k3"}
	tests := []struct {
		name    string
		opts    Options
		offline bool  // the offline image is here before Up
		build   error // what BuildOffline returns; it makes the image when nil
		image   string
		built   bool
		notice  string // part of the notice
		wantErr string // part of the error
	}{
		{name: "offline image here", offline: true, image: OfflineImage,
			notice: "apache/kafka:4.3.1 cannot be pulled (no such host): running kbf/kafka:4.3.1"},
		{name: "built", image: OfflineImage, built: true,
			notice: "apache/kafka:4.3.1 cannot be pulled (no such host): building the offline image kbf/kafka:4.3.1 (make image)"},
		{name: "build fails", build: errors.New("debootstrap is required"), built: true,
			wantErr: "image apache/kafka:4.3.1 cannot be pulled (no such host), and building kbf/kafka:4.3.1 failed: debootstrap is required"},
		{name: "another image is not replaced", opts: Options{Image: "x/kafka:9"}, offline: true,
			wantErr: "image x/kafka:9 is not here and cannot be pulled (no such host)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine()
			delete(f.images, DefaultImage)
			f.pullErr = errors.New("no such host")
			if tt.offline {
				f.images[OfflineImage] = "sha256:off"
			}
			var built bool
			var notices []string
			opts := tt.opts
			opts.BuildOffline = func(context.Context) error {
				built = true
				if tt.build == nil {
					f.images[OfflineImage] = "sha256:built"
				}
				return tt.build
			}
			opts.Notice = func(s string) { notices = append(notices, s) }
			c := testCluster(t, opts, f)
			rep := &UpReport{}
			err := c.upContainers(context.Background(), rep)
			if built != tt.built {
				t.Errorf("built %v, want %v", built, tt.built)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("upContainers: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("upContainers: %v", err)
			}
			if c.Image() != tt.image || !slices.Equal(rep.Created, all) {
				t.Errorf("image %s, created %v; want %s and all four", c.Image(), rep.Created, tt.image)
			}
			for _, svc := range all {
				if got := f.containers[c.ContainerName(svc)].Config.Image; got != tt.image {
					t.Errorf("%s runs %s, want %s", svc, got, tt.image)
				}
			}
			if len(notices) != 1 || !strings.Contains(notices[0], tt.notice) {
				t.Errorf("notices %q, want one with %q", notices, tt.notice)
			}
		})
	}
}

func TestPortFreeWithin(t *testing.T) {
	taken := errors.New("address already in use")
	tests := []struct {
		name   string
		busy   int // the answers that say taken before the port is free; -1: always
		within time.Duration
		want   error
	}{
		{name: "free at once", busy: 0, within: 0},
		{name: "held for an instant", busy: 2, within: time.Minute},
		{name: "taken for good", busy: -1, within: 300 * time.Millisecond, want: taken},
		{name: "no time to look again", busy: 1, within: 0, want: taken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testCluster(t, Options{}, newFakeEngine())
			asked := 0
			c.portFree = func(string, int) error {
				asked++
				if tt.busy < 0 || asked <= tt.busy {
					return taken
				}
				return nil
			}
			if err := c.portFreeWithin("127.0.0.1", 19092, tt.within); !errors.Is(err, tt.want) {
				t.Errorf("portFreeWithin = %v, want %v (asked %d times)", err, tt.want, asked)
			}
		})
	}
}

func TestPhaseLine(t *testing.T) {
	tests := []struct {
		p    Phase
		want string
	}{
		{Phase{Name: PhaseContainers, Took: 2240 * time.Millisecond, Detail: "created c1 k1 k2 k3"},
			"containers              2.24s  created c1 k1 k2 k3"},
		{Phase{Name: PhaseISR, Took: 3 * time.Millisecond}, "ISR full                0.00s"},
	}
	for _, tt := range tests {
		if got := tt.p.Line(); got != tt.want {
			t.Errorf("Line = %q, want %q", got, tt.want)
		}
	}
}
