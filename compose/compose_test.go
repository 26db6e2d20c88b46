package compose

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// testCluster is a Cluster on a fake engine, with an empty environment so
// the test's own KBF_ variables do not leak in.
func testCluster(t *testing.T, opts Options, f *fakeEngine) *Cluster {
	t.Helper()
	if opts.Env == nil {
		opts.Env = map[string]string{}
	}
	c, err := newCluster(opts, f)
	if err != nil {
		t.Fatalf("newCluster: %v", err)
	}
	c.portFree = func(string, int) error { return nil }
	return c
}

func TestEmbeddedFile(t *testing.T) {
	c := testCluster(t, Options{}, newFakeEngine())
	if got := c.Image(); got != DefaultImage {
		t.Errorf("Image() = %q, want %q", got, DefaultImage)
	}
	if got, want := c.Services(), []string{"c1", "k1", "k2", "k3"}; !slices.Equal(got, want) {
		t.Errorf("Services() = %v, want %v", got, want)
	}
	if got, want := c.BrokerServices(), []string{"k1", "k2", "k3"}; !slices.Equal(got, want) {
		t.Errorf("BrokerServices() = %v, want %v", got, want)
	}
	if got, want := c.Bootstrap(), []string{"127.0.0.1:19092", "127.0.0.1:19093", "127.0.0.1:19094"}; !slices.Equal(got, want) {
		t.Errorf("Bootstrap() = %v, want %v", got, want)
	}
	brokers := c.Brokers()
	if len(brokers) != 3 || brokers["k1"] != 1 || brokers["k2"] != 2 || brokers["k3"] != 3 {
		t.Errorf("Brokers() = %v, want k1:1 k2:2 k3:3", brokers)
	}
	if id, ok := c.NodeID("c1"); !ok || id != 100 {
		t.Errorf("NodeID(c1) = %d, %v; want 100, true", id, ok)
	}
	if s, ok := c.Service(2); !ok || s != "k2" {
		t.Errorf("Service(2) = %q, %v; want k2, true", s, ok)
	}
	if _, ok := c.Service(7); ok {
		t.Errorf("Service(7) found a service")
	}
	if got := c.ContainerName("k3"); got != "kbf-k3" {
		t.Errorf("ContainerName(k3) = %q", got)
	}
	if got, want := c.Admin().TopicNames(), []string{"orders", "single"}; !slices.Equal(got, want) {
		t.Errorf("TopicNames() = %v, want %v", got, want)
	}
	if got := c.ClusterID(); got != "a2JmLWNsdXN0ZXItMDAwMQ" {
		t.Errorf("ClusterID() = %q, want compose.yaml's CLUSTER_ID", got)
	}
}

func TestEnvironment(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		image     string
		bootstrap []string
		wantErr   string // part of the error; "" for none
	}{
		{name: "defaults", opts: Options{Env: map[string]string{}}, image: DefaultImage,
			bootstrap: []string{"127.0.0.1:19092", "127.0.0.1:19093", "127.0.0.1:19094"}},
		{name: "KBF_IMAGE", opts: Options{Env: map[string]string{"KBF_IMAGE": OfflineImage}}, image: OfflineImage},
		{name: "option beats KBF_IMAGE", opts: Options{Image: "x/y:1", Env: map[string]string{"KBF_IMAGE": OfflineImage}}, image: "x/y:1"},
		{name: "port variable", opts: Options{Env: map[string]string{"KBF_K2_PORT": "29093"}}, image: DefaultImage,
			bootstrap: []string{"127.0.0.1:19092", "127.0.0.1:29093", "127.0.0.1:19094"}},
		{name: "two brokers one port", opts: Options{Env: map[string]string{"KBF_K3_PORT": "19092"}},
			wantErr: "KBF_K1_PORT and KBF_K3_PORT both name port 19092"},
		{name: "not a port", opts: Options{Env: map[string]string{"KBF_K1_PORT": "abc"}}, wantErr: "KBF_K1_PORT=abc: not a port (1-65535)"},
		{name: "port out of range", opts: Options{Env: map[string]string{"KBF_K3_PORT": "70000"}}, wantErr: "KBF_K3_PORT=70000: not a port"},
		{name: "bad topic", opts: Options{Env: map[string]string{}, Topics: []Topic{{Name: "t", Partitions: 1, ReplicationFactor: 4}}},
			wantErr: "topic t: replication factor 4 needs 4 brokers, there are 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newCluster(tt.opts, newFakeEngine())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("newCluster: error %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("newCluster: %v", err)
			}
			if c.Image() != tt.image {
				t.Errorf("Image() = %q, want %q", c.Image(), tt.image)
			}
			if tt.bootstrap != nil && !slices.Equal(c.Bootstrap(), tt.bootstrap) {
				t.Errorf("Bootstrap() = %v, want %v", c.Bootstrap(), tt.bootstrap)
			}
			for _, svc := range c.Services() {
				if got := c.proj.services[svc].Image; got != tt.image {
					t.Errorf("service %s runs %q, want %q", svc, got, tt.image)
				}
			}
		})
	}
}

// The advertised listener must follow the published port, or clients are
// sent to a port nothing listens on.
func TestPortReachesListeners(t *testing.T) {
	c := testCluster(t, Options{Env: map[string]string{"KBF_K1_PORT": "29092"}}, newFakeEngine())
	sp := c.proj.spec("k1", "sha256:aaa")
	var adv, lis string
	for _, kv := range sp.Config.Env {
		if v, ok := strings.CutPrefix(kv, "KAFKA_ADVERTISED_LISTENERS="); ok {
			adv = v
		}
		if v, ok := strings.CutPrefix(kv, "KAFKA_LISTENERS="); ok {
			lis = v
		}
	}
	if !strings.Contains(adv, "EXTERNAL://127.0.0.1:29092") || !strings.Contains(lis, "EXTERNAL://:29092") {
		t.Errorf("listeners %q, advertised %q: want port 29092", lis, adv)
	}
	b := sp.Host.PortBindings["29092/tcp"]
	if len(b) != 1 || b[0].HostIP != "127.0.0.1" || b[0].HostPort != "29092" {
		t.Errorf("port bindings %v, want 127.0.0.1:29092 for 29092/tcp", sp.Host.PortBindings)
	}
}

func TestSpec(t *testing.T) {
	c := testCluster(t, Options{}, newFakeEngine())
	sp := c.proj.spec("k2", "sha256:aaa")
	if sp.Name != "kbf-k2" || sp.Config.Hostname != "k2" || sp.Config.Image != DefaultImage {
		t.Errorf("name %q hostname %q image %q", sp.Name, sp.Config.Hostname, sp.Config.Image)
	}
	if sp.Config.StopTimeout == nil || *sp.Config.StopTimeout != 120 {
		t.Errorf("StopTimeout = %v, want 120", sp.Config.StopTimeout)
	}
	for k, want := range map[string]string{
		labelProject: "kbf", labelService: "k2", labelOneoff: "False", labelNumber: "1",
		labelDependsOn: "c1:service_started:false", labelImage: "sha256:aaa",
	} {
		if got := sp.Config.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	if sp.Config.Labels[labelConfigHash] != sp.hash() || len(sp.hash()) != 64 {
		t.Errorf("config hash label %q, hash %q", sp.Config.Labels[labelConfigHash], sp.hash())
	}
	if string(sp.Host.NetworkMode) != "kbf" || !slices.Equal(sp.Networking.EndpointsConfig["kbf"].Aliases, []string{"k2"}) {
		t.Errorf("network %q aliases %v, want kbf [k2]", sp.Host.NetworkMode, sp.Networking.EndpointsConfig["kbf"])
	}
	if sp.Host.CPUShares != 512 {
		t.Errorf("CPU shares %d, want 512: the nodes beneath the default weight", sp.Host.CPUShares)
	}
	if sp.Host.RestartPolicy.Name != "no" {
		t.Errorf("restart policy %q: a killed broker must stay down", sp.Host.RestartPolicy.Name)
	}
	// The hash ignores the image's id (compared apart) but not its name.
	if other := c.proj.spec("k2", "sha256:bbb"); other.hash() != sp.hash() {
		t.Errorf("hash changed with the image id")
	}
	c2 := testCluster(t, Options{Image: OfflineImage}, newFakeEngine())
	if c2.proj.spec("k2", "sha256:aaa").hash() == sp.hash() {
		t.Errorf("hash did not change with the image name")
	}
	if c.proj.spec("k1", "sha256:aaa").hash() == sp.hash() {
		t.Errorf("k1 and k2 have one hash")
	}
}

// A disk limit mounts a tmpfs on the node's log directory, and only its;
// the node's hash changes, so Up recreates it.
func TestDiskLimits(t *testing.T) {
	plain := testCluster(t, Options{}, newFakeEngine())
	c := testCluster(t, Options{DiskLimits: map[string]string{"k1": "128m"}}, newFakeEngine())
	sp := c.proj.spec("k1", "")
	if got := sp.Host.Tmpfs; len(got) != 1 || got["/var/lib/kafka/data"] != "size=128m,uid=1000,gid=1000" {
		t.Errorf("k1 tmpfs %v, want /var/lib/kafka/data of 128m", got)
	}
	if sp.hash() == plain.proj.spec("k1", "").hash() {
		t.Error("the disk limit left k1's hash as it was")
	}
	if got := c.proj.spec("k2", "").Host.Tmpfs; got != nil {
		t.Errorf("k2 tmpfs %v, want none", got)
	}
	if got := c.LogDir("k1"); got != "/var/lib/kafka/data" {
		t.Errorf("LogDir(k1) = %q", got)
	}
	// A restart empties the tmpfs: the one-replica topic lives elsewhere.
	for _, tp := range c.Topics() {
		if tp.ReplicationFactor == 1 && !slices.Equal(tp.Brokers, []int32{2}) {
			t.Errorf("topic %s on %v, want on broker 2, not on k1's tmpfs", tp.Name, tp.Brokers)
		}
	}
	for _, tc := range []struct {
		limits map[string]string
		want   string
	}{
		{map[string]string{"k9": "128m"}, "disk limit: no Kafka node k9"},
		{map[string]string{"k1": "lots"}, `disk size "lots": want a size such as 128m`},
		{map[string]string{"k1": "0"}, `disk size "0"`},
	} {
		_, err := newCluster(Options{Env: map[string]string{}, DiskLimits: tc.limits}, newFakeEngine())
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DiskLimits %v: error %v, want ErrInvalid containing %q", tc.limits, err, tc.want)
		}
	}
}

func TestSubset(t *testing.T) {
	const head = "services:\n  c1:\n    image: i\n    environment: {KAFKA_NODE_ID: '100', KAFKA_PROCESS_ROLES: controller}\n" +
		"  k1:\n    image: i\n    ports: ['127.0.0.1:19092:19092']\n    environment: {KAFKA_NODE_ID: '1', KAFKA_PROCESS_ROLES: broker}\n"
	tests := []struct {
		name, extra, wantErr string
	}{
		{name: "minimal", extra: ""},
		{name: "tmpfs", extra: "    tmpfs: ['/var/lib/kafka/data:size=64m']\n"},
		{name: "volumes", extra: "    volumes: ['/a:/b']\n", wantErr: "service k1: volumes is not supported"},
		{name: "command", extra: "    command: ['x']\n", wantErr: "service k1: command is not supported"},
		{name: "restart", extra: "    restart: always\n", wantErr: "service k1: restart is not supported"},
		{name: "healthy condition", extra: "    depends_on: {c1: {condition: service_healthy}}\n",
			wantErr: "depends_on c1: only condition service_started is supported"},
		{name: "expose", extra: "    expose: ['1']\n", wantErr: "expose is not supported"},
		{name: "pull always", extra: "    pull_policy: always\n", wantErr: "pull_policy always is not supported"},
		{name: "depends on nothing", extra: "    depends_on: [zz]\n", wantErr: "zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseProject(context.Background(), []byte(head+tt.extra), map[string]string{})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("parseProject: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("parseProject: error %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestStartOrder(t *testing.T) {
	const file = "services:\n" +
		"  a: {image: i, depends_on: [b], environment: {KAFKA_NODE_ID: '1', KAFKA_PROCESS_ROLES: broker}, ports: ['1:1']}\n" +
		"  b: {image: i, depends_on: [c], environment: {KAFKA_NODE_ID: '2', KAFKA_PROCESS_ROLES: broker}, ports: ['2:2']}\n" +
		"  c: {image: i, environment: {KAFKA_NODE_ID: '3', KAFKA_PROCESS_ROLES: controller}}\n" +
		"  d: {image: i, environment: {KAFKA_NODE_ID: '4', KAFKA_PROCESS_ROLES: broker}, ports: ['4:4']}\n"
	p, err := parseProject(context.Background(), []byte(file), map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	// By depth in the dependency graph, then by name: d depends on
	// nothing, so it starts with the first wave after c.
	if want := []string{"c", "d", "b", "a"}; !slices.Equal(p.order, want) {
		t.Errorf("order %v, want %v", p.order, want)
	}
	cycle := strings.Replace(file, "  c: {image: i,", "  c: {image: i, depends_on: [a],", 1)
	if _, err := parseProject(context.Background(), []byte(cycle), map[string]string{}); err == nil ||
		!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("a depends_on cycle: error %v, want ErrInvalid naming the cycle", err)
	}
}

func TestAssignment(t *testing.T) {
	all := []int32{1, 2, 3}
	tests := []struct {
		name  string
		topic Topic
		want  [][]int32
	}{
		{"orders", DefaultTopics()[0], [][]int32{{1, 2, 3}, {2, 3, 1}, {3, 1, 2}}},
		{"single", DefaultTopics()[1], [][]int32{{1}}},
		{"rf 2, 4 partitions", Topic{Partitions: 4, ReplicationFactor: 2}, [][]int32{{1, 2}, {2, 3}, {3, 1}, {1, 2}}},
		{"on brokers 3 and 2", Topic{Partitions: 2, ReplicationFactor: 2, Brokers: []int32{3, 2}}, [][]int32{{3, 2}, {2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.topic.Assignment(all)
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("Assignment = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestValidateTopics(t *testing.T) {
	tests := []struct {
		name    string
		topics  []Topic
		wantErr string
	}{
		{"defaults", DefaultTopics(), ""},
		{"none", []Topic{}, ""},
		{"rf 2 min 2", []Topic{{Name: "a", Partitions: 6, ReplicationFactor: 2, MinInsync: 2}}, ""},
		{"no name", []Topic{{Partitions: 1, ReplicationFactor: 1}}, "a topic needs a name"},
		{"no partitions", []Topic{{Name: "a", ReplicationFactor: 1}}, "topic a: 0 partitions: want at least 1"},
		{"rf 0", []Topic{{Name: "a", Partitions: 1}}, "topic a: replication factor 0: want at least 1"},
		{"rf 4", []Topic{{Name: "a", Partitions: 1, ReplicationFactor: 4}}, "replication factor 4 needs 4 brokers, there are 3"},
		{"min above rf", []Topic{{Name: "a", Partitions: 1, ReplicationFactor: 2, MinInsync: 3}},
			"topic a: min.insync.replicas 3: want 1 to the replication factor 2"},
		{"unknown broker", []Topic{{Name: "a", Partitions: 1, ReplicationFactor: 1, Brokers: []int32{9}}},
			"topic a: no broker 9 (brokers: 1,2,3)"},
		{"rf above its brokers", []Topic{{Name: "a", Partitions: 1, ReplicationFactor: 2, Brokers: []int32{1}}},
			"replication factor 2 needs 2 brokers, there are 1"},
		{"twice", []Topic{DefaultTopics()[0], DefaultTopics()[0]}, "topic orders named twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateTopics(tt.topics)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("ValidateTopics: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr && !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("ValidateTopics: error %v, want ErrInvalid containing %q", err, tt.wantErr)
			}
		})
	}
}
