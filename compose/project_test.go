package compose

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
)

func TestParseSetting(t *testing.T) {
	tests := []struct {
		in      string
		want    Setting
		wantErr string
	}{
		{in: "broker.session.timeout.ms=4000", want: Setting{Key: "broker.session.timeout.ms", Value: "4000"}},
		{in: "c1:broker.session.timeout.ms=4000", want: Setting{Node: "c1", Key: "broker.session.timeout.ms", Value: "4000"}},
		{in: "k2:log.retention.ms=", want: Setting{Node: "k2", Key: "log.retention.ms", Value: ""}},
		{in: "ssl.endpoint.identification.algorithm=a=b:c", want: Setting{Key: "ssl.endpoint.identification.algorithm", Value: "a=b:c"}},
		{in: "broker.session.timeout.ms", wantErr: "want KEY=VALUE or NODE:KEY=VALUE"},
		{in: ":a.b=1", wantErr: "no node before the colon"},
		{in: "Broker.Session=1", wantErr: `"Broker.Session" is not a Kafka property name`},
		{in: "=1", wantErr: "is not a Kafka property name"},
		{in: "node.id=7", wantErr: "node.id is part of the cluster's shape"},
		{in: "k1:listeners=PLAINTEXT://:9092", wantErr: "listeners is part of the cluster's shape"},
		{in: "broker.sesion.timeout.ms=4000", wantErr: "broker.sesion.timeout.ms is not a property Kafka's brokers and controllers know (did you mean broker.session.timeout.ms?)"},
		{in: "no.such.property=1", wantErr: "no.such.property is not a property Kafka's brokers and controllers know; check its spelling"},
		{in: "listener.name.host.plain.sasl.jaas.config=x", want: Setting{Key: "listener.name.host.plain.sasl.jaas.config", Value: "x"}},
		{in: "c1:unclean.leader.election.enable=true", want: Setting{Node: "c1", Key: "unclean.leader.election.enable", Value: "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSetting(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSetting: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSetting = %+v, %v; want %+v", got, err, tt.want)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	for key, want := range map[string]string{
		"broker.session.timeout.ms":   "KAFKA_BROKER_SESSION_TIMEOUT_MS",
		"log.flush.interval_messages": "KAFKA_LOG_FLUSH_INTERVAL__MESSAGES",
		"a-b.c":                       "KAFKA_A___B_C",
	} {
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", key, got, want)
		}
	}
}

func envOf(t *testing.T, c *Cluster, svc string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, kv := range c.proj.spec(svc, "").Config.Env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func TestConfig(t *testing.T) {
	set := func(s ...string) []Setting {
		var out []Setting
		for _, x := range s {
			st, err := ParseSetting(x)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, st)
		}
		return out
	}
	tests := []struct {
		name     string
		config   []Setting
		want     map[string]string // service → the value of KAFKA_BROKER_SESSION_TIMEOUT_MS, "" for unset
		recreate []string
		wantErr  string
	}{
		{name: "none", want: map[string]string{"c1": "", "k1": "", "k2": "", "k3": ""}},
		{name: "every node", config: set("broker.session.timeout.ms=4000"),
			want:     map[string]string{"c1": "4000", "k1": "4000", "k2": "4000", "k3": "4000"},
			recreate: []string{"c1", "k1", "k2", "k3"}},
		{name: "one broker", config: set("k2:broker.session.timeout.ms=4000"),
			want: map[string]string{"c1": "", "k1": "", "k2": "4000", "k3": ""}, recreate: []string{"k2"}},
		{name: "the controller recreates the brokers too", config: set("c1:broker.session.timeout.ms=4000"),
			want: map[string]string{"c1": "4000", "k1": "", "k2": "", "k3": ""}, recreate: []string{"c1", "k1", "k2", "k3"}},
		{name: "later wins", config: set("broker.session.timeout.ms=4000", "k1:broker.session.timeout.ms=6000"),
			want:     map[string]string{"c1": "4000", "k1": "6000", "k2": "4000", "k3": "4000"},
			recreate: []string{"c1", "k1", "k2", "k3"}},
		{name: "unknown node", config: set("k9:log.retention.ms=1"), wantErr: "--config k9:log.retention.ms=1: no node k9 (nodes: c1 k1 k2 k3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeEngine()
			upFromNothing(t, f, Options{})
			c, err := newCluster(Options{Env: map[string]string{}, Config: tt.config}, f)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrInvalid) {
					t.Fatalf("newCluster: %v, want ErrInvalid %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.portFree = func(string, int) error { return nil }
			for svc, want := range tt.want {
				if got := envOf(t, c, svc)["KAFKA_BROKER_SESSION_TIMEOUT_MS"]; got != want {
					t.Errorf("%s: KAFKA_BROKER_SESSION_TIMEOUT_MS=%q, want %q", svc, got, want)
				}
			}
			rep := &UpReport{}
			if err := c.upContainers(context.Background(), rep); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rep.Recreated, tt.recreate) {
				t.Errorf("recreated %v, want %v", rep.Recreated, tt.recreate)
			}
		})
	}
}

func TestResize(t *testing.T) {
	tests := []struct {
		name        string
		brokers     int
		controllers int
		combined    bool
		env         map[string]string
		services    []string
		bootstrap   []string
		voters      string
		wantErr     string
	}{
		{name: "default", services: []string{"c1", "k1", "k2", "k3"},
			bootstrap: []string{"127.0.0.1:19092", "127.0.0.1:19093", "127.0.0.1:19094"}, voters: "100@c1:9093"},
		{name: "five brokers, three controllers", brokers: 5, controllers: 3,
			services:  []string{"c1", "c2", "c3", "k1", "k2", "k3", "k4", "k5"},
			bootstrap: []string{"127.0.0.1:19092", "127.0.0.1:19093", "127.0.0.1:19094", "127.0.0.1:19095", "127.0.0.1:19096"},
			voters:    "100@c1:9093,101@c2:9093,102@c3:9093"},
		{name: "one broker, port variable", brokers: 1, env: map[string]string{"KBF_K1_PORT": "29092"},
			services: []string{"c1", "k1"}, bootstrap: []string{"127.0.0.1:29092"}, voters: "100@c1:9093"},
		{name: "two controllers", controllers: 2, wantErr: "--controllers 2: want 1 or 3"},
		{name: "combined", combined: true, services: []string{"k1", "k2", "k3"},
			bootstrap: []string{"127.0.0.1:19092", "127.0.0.1:19093", "127.0.0.1:19094"}, voters: "1@k1:9093,2@k2:9093,3@k3:9093"},
		{name: "combined, even", combined: true, brokers: 4, wantErr: "--combined with --brokers 4: the brokers are the quorum, so want an odd number"},
		{name: "no broker", brokers: -1, wantErr: "--brokers -1: want 1 to 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if env == nil {
				env = map[string]string{}
			}
			opts := Options{Env: env, Brokers: tt.brokers, Controllers: tt.controllers, Combined: tt.combined}
			if tt.brokers == 1 {
				opts.Topics = []Topic{{Name: "t", Partitions: 1, ReplicationFactor: 1}}
			}
			c, err := newCluster(opts, newFakeEngine())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("newCluster: %v, want ErrInvalid %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Services(); !slices.Equal(got, tt.services) {
				t.Errorf("Services() = %v, want %v", got, tt.services)
			}
			if got := c.Bootstrap(); !slices.Equal(got, tt.bootstrap) {
				t.Errorf("Bootstrap() = %v, want %v", got, tt.bootstrap)
			}
			for _, svc := range c.Services() {
				env := envOf(t, c, svc)
				if env["KAFKA_CONTROLLER_QUORUM_VOTERS"] != tt.voters {
					t.Errorf("%s: voters %q, want %q", svc, env["KAFKA_CONTROLLER_QUORUM_VOTERS"], tt.voters)
				}
				id, _ := c.NodeID(svc)
				if env["KAFKA_NODE_ID"] != strings.TrimSpace(strings.Repeat(" ", 0)+itoa(id)) {
					t.Errorf("%s: KAFKA_NODE_ID %q, node %d", svc, env["KAFKA_NODE_ID"], id)
				}
				if roles := env["KAFKA_PROCESS_ROLES"]; tt.combined && roles != "broker,controller" {
					t.Errorf("%s: process roles %q, want broker,controller", svc, roles)
				}
				if c.ContainerName(svc) != "kbf-"+svc {
					t.Errorf("%s: container %s", svc, c.ContainerName(svc))
				}
			}
		})
	}
}

func itoa(i int32) string { return joinIDs([]int32{i}) }

func TestLead(t *testing.T) {
	tests := []struct {
		name    string
		brokers int
		lead    string
		want    [][]int32
		wantErr string
	}{
		{name: "k1 by default", want: [][]int32{{1, 2, 3}, {2, 3, 1}, {3, 1, 2}}},
		{name: "k2", lead: "k2", want: [][]int32{{2, 3, 1}, {3, 1, 2}, {1, 2, 3}}},
		{name: "k5 of five", brokers: 5, lead: "k5", want: [][]int32{{5, 1, 2}, {1, 2, 3}, {2, 3, 4}}},
		{name: "not a broker", lead: "c1", wantErr: "broker c1: not a broker of the cluster (k1 k2 k3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newCluster(Options{Env: map[string]string{}, Brokers: tt.brokers, Lead: tt.lead}, newFakeEngine())
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("newCluster: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ids := c.proj.brokerIDs()
			if got := c.Topics()[0].Assignment(ids); !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("assignment %v, want %v", got, tt.want)
			}
			if got := c.Topics()[1].Assignment(ids); !slices.EqualFunc(got, [][]int32{{1}}, slices.Equal) {
				t.Errorf("single: %v, want on broker 1", got)
			}
		})
	}
}

// userFile is a compose file as a user would write it: other names, the
// official image's defaults for logging, one combined listener per broker.
const userFile = `
name: shop
services:
  kraft:
    image: ${KBF_IMAGE:-apache/kafka:4.3.1}
    environment:
      KAFKA_NODE_ID: 9
      KAFKA_PROCESS_ROLES: controller
      KAFKA_LISTENERS: CONTROLLER://:9093
      KAFKA_CONTROLLER_LISTENER_NAMES: CONTROLLER
      KAFKA_CONTROLLER_QUORUM_VOTERS: 9@kraft:9093
      CLUSTER_ID: c2hvcC1jbHVzdGVyLTAwMDE
  kafka-a:
    image: ${KBF_IMAGE:-apache/kafka:4.3.1}
    depends_on: [kraft]
    ports: ["29092:29092"]
    environment:
      KAFKA_NODE_ID: 1
      KAFKA_PROCESS_ROLES: broker
      KAFKA_LISTENERS: DOCKER://:9092,HOST://:29092
      KAFKA_ADVERTISED_LISTENERS: DOCKER://kafka-a:9092,HOST://localhost:29092
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: DOCKER:PLAINTEXT,HOST:PLAINTEXT,CONTROLLER:PLAINTEXT
      KAFKA_INTER_BROKER_LISTENER_NAME: DOCKER
      KAFKA_CONTROLLER_LISTENER_NAMES: CONTROLLER
      KAFKA_CONTROLLER_QUORUM_VOTERS: 9@kraft:9093
      CLUSTER_ID: c2hvcC1jbHVzdGVyLTAwMDE
    volumes: ["data-a:/var/lib/kafka/data"]
  kafka-b:
    image: ${KBF_IMAGE:-apache/kafka:4.3.1}
    depends_on: [kraft]
    ports: ["127.0.0.1:29093:29093"]
    restart: unless-stopped
    environment:
      KAFKA_NODE_ID: 2
      KAFKA_PROCESS_ROLES: broker
      KAFKA_LISTENERS: DOCKER://:9092,HOST://:29093
      KAFKA_ADVERTISED_LISTENERS: DOCKER://kafka-b:9092,HOST://127.0.0.1:29093
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: DOCKER:PLAINTEXT,HOST:PLAINTEXT,CONTROLLER:PLAINTEXT
      KAFKA_INTER_BROKER_LISTENER_NAME: DOCKER
      KAFKA_CONTROLLER_LISTENER_NAMES: CONTROLLER
      KAFKA_CONTROLLER_QUORUM_VOTERS: 9@kraft:9093
      CLUSTER_ID: c2hvcC1jbHVzdGVyLTAwMDE
  kafka-c:
    image: ${KBF_IMAGE:-apache/kafka:4.3.1}
    depends_on: [kraft]
    ports: ["127.0.0.1:29094:29094"]
    environment:
      KAFKA_NODE_ID: 3
      KAFKA_PROCESS_ROLES: broker
      KAFKA_LISTENERS: DOCKER://:9092,HOST://:29094
      KAFKA_ADVERTISED_LISTENERS: DOCKER://kafka-c:9092,HOST://127.0.0.1:29094
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: DOCKER:PLAINTEXT,HOST:PLAINTEXT,CONTROLLER:PLAINTEXT
      KAFKA_INTER_BROKER_LISTENER_NAME: DOCKER
      KAFKA_CONTROLLER_LISTENER_NAMES: CONTROLLER
      KAFKA_CONTROLLER_QUORUM_VOTERS: 9@kraft:9093
      CLUSTER_ID: c2hvcC1jbHVzdGVyLTAwMDE
volumes:
  data-a: {}
`

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "compose.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUserFile(t *testing.T) {
	file := writeFile(t, userFile)
	c, err := newCluster(Options{Env: map[string]string{}, File: file}, newFakeEngine())
	if err != nil {
		t.Fatalf("newCluster: %v", err)
	}
	if got, want := c.Services(), []string{"kraft", "kafka-a", "kafka-b", "kafka-c"}; !slices.Equal(got, want) {
		t.Errorf("Services() = %v, want %v", got, want)
	}
	if got, want := c.BrokerServices(), []string{"kafka-a", "kafka-b", "kafka-c"}; !slices.Equal(got, want) {
		t.Errorf("BrokerServices() = %v, want %v", got, want)
	}
	if got, want := c.Bootstrap(), []string{"localhost:29092", "127.0.0.1:29093", "127.0.0.1:29094"}; !slices.Equal(got, want) {
		t.Errorf("Bootstrap() = %v, want %v", got, want)
	}
	if got := c.ContainerName("kafka-a"); got != "shop-kafka-a-1" {
		t.Errorf("ContainerName(kafka-a) = %q, want docker compose's shop-kafka-a-1", got)
	}
	if got := c.ClusterID(); got != "c2hvcC1jbHVzdGVyLTAwMDE" {
		t.Errorf("ClusterID() = %q", got)
	}
	if !c.LogsToStdout("kafka-a") {
		t.Errorf("LogsToStdout(kafka-a) = false: the file gives no log4j configuration")
	}
	if got := c.Topics()[1].Assignment(nil); !slices.EqualFunc(got, [][]int32{{1}}, slices.Equal) {
		t.Errorf("single on %v, want the first broker", got)
	}
	p, err := newCluster(Options{Env: map[string]string{}, File: file, ProjectName: "tc123"}, newFakeEngine())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ContainerName("kraft"); got != "tc123-kraft-1" {
		t.Errorf("with a project name: ContainerName(kraft) = %q, want tc123-kraft-1", got)
	}
}

func TestUserFileErrors(t *testing.T) {
	const ctrl = "  c:\n    image: i\n    environment: {KAFKA_NODE_ID: 9, KAFKA_PROCESS_ROLES: controller}\n"
	tests := []struct {
		name, file, wantErr string
	}{
		{"not kafka", ctrl + "  b:\n    image: i\n    ports: ['1:1']\n    environment: {KAFKA_NODE_ID: 1, KAFKA_PROCESS_ROLES: broker}\n  ui:\n    image: kafka-ui\n",
			"service ui: not a Kafka node: no KAFKA_NODE_ID"},
		{"no controller", "  b:\n    image: i\n    ports: ['1:1']\n    environment: {KAFKA_NODE_ID: 1, KAFKA_PROCESS_ROLES: broker}\n",
			"no KRaft controller (no service has controller in KAFKA_PROCESS_ROLES)"},
		{"zookeeper", "  b:\n    image: i\n    ports: ['1:1']\n    environment: {KAFKA_NODE_ID: 1, KAFKA_ZOOKEEPER_CONNECT: zk:2181}\n",
			`service b: KAFKA_PROCESS_ROLES "": want broker, controller or both`},
		{"no listener from the host", ctrl + "  b:\n    image: i\n    environment: {KAFKA_NODE_ID: 1, KAFKA_PROCESS_ROLES: broker, KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://b:9092'}\n",
			"service b: KAFKA_ADVERTISED_LISTENERS PLAINTEXT://b:9092: no listener is advertised on localhost at a port the service publishes (ports: none)"},
		{"advertised on a port not published", ctrl + "  b:\n    image: i\n    ports: ['9092:9092']\n    environment: {KAFKA_NODE_ID: 1, KAFKA_PROCESS_ROLES: broker, KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://localhost:9999'}\n",
			"(ports: 9092)"},
		{"two nodes one id", ctrl + "  b:\n    image: i\n    ports: ['1:1']\n    environment: {KAFKA_NODE_ID: 9, KAFKA_PROCESS_ROLES: broker}\n",
			"services b and c are both node 9 (KAFKA_NODE_ID)"},
		{"brokers flag", "", "--brokers and --controllers shape kbf's own cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFile(t, "services:\n"+tt.file)
			opts := Options{Env: map[string]string{}, File: file, Topics: []Topic{}}
			if tt.name == "brokers flag" {
				opts.Brokers = 5
			}
			_, err := newCluster(opts, newFakeEngine())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("newCluster: %v, want one line of ErrInvalid containing %q", err, tt.wantErr)
			}
		})
	}
	for name, path := range map[string]string{
		"missing file": filepath.Join(t.TempDir(), "none.yaml"),
		"directory":    t.TempDir(),
		"device":       os.DevNull,
	} {
		if _, err := newCluster(Options{File: path}, newFakeEngine()); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// A stack docker compose made from the user's file is used as it is; what
// kbf would have to create itself, it creates only within its subset.
func TestUserFileAdopted(t *testing.T) {
	file := writeFile(t, userFile)
	f := newFakeEngine()
	c, err := newCluster(Options{Env: map[string]string{}, File: file}, f)
	if err != nil {
		t.Fatal(err)
	}
	c.portFree = func(string, int) error { return nil }
	// What docker compose up -d would leave: its own labels and hash.
	f.networks["n1"] = networkSummary("n1", "shop_default")
	for _, svc := range c.Services() {
		name := c.ContainerName(svc)
		f.containers[name] = &container.InspectResponse{
			ContainerJSONBase: &container.ContainerJSONBase{ID: name, Name: "/" + name, Image: "sha256:aaa",
				State: &container.State{Status: container.StateRunning, Running: true}},
			Config: &container.Config{Labels: map[string]string{labelProject: "shop", labelService: svc, labelConfigHash: "compose's"}},
		}
	}
	stop(f, "shop-kafka-b-1", 137)
	rep := &UpReport{}
	if err := c.upContainers(context.Background(), rep); err != nil {
		t.Fatalf("upContainers: %v", err)
	}
	if !slices.Equal(f.calls, []string{"start shop-kafka-b-1"}) || !slices.Equal(rep.Started, []string{"kafka-b"}) {
		t.Errorf("calls %q, started %v; want kafka-b started and nothing else", f.calls, rep.Started)
	}

	// kafka-b's restart: and volumes: are outside what kbf creates.
	delete(f.containers, "shop-kafka-b-1")
	err = c.upContainers(context.Background(), &UpReport{})
	if err == nil || !strings.Contains(err.Error(), "service kafka-a: kbf cannot create its container itself (volumes is not supported)") &&
		!strings.Contains(err.Error(), "service kafka-b: kbf cannot create its container itself (restart is not supported)") {
		t.Errorf("upContainers with kafka-b missing: %v, want a refusal naming the key", err)
	}

	// --config cannot reach a container kbf did not make.
	cfg, err := newCluster(Options{Env: map[string]string{}, File: file, Config: []Setting{{Node: "kafka-a", Key: "a.b", Value: "1"}}}, f)
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.upContainers(context.Background(), &UpReport{})
	if err == nil || !strings.Contains(err.Error(), "service kafka-a: --config cannot change container shop-kafka-a-1, which kbf did not create") {
		t.Errorf("upContainers with --config: %v, want a refusal", err)
	}
}
