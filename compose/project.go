package compose

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/compose-spec/compose-go/v2/graph"
	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/kbf-project/kbf/internal/regfile"
	"github.com/kbf-project/kbf/internal/spell"
)

// project is the loaded compose file, with what kbf reads out of it.
type project struct {
	name string // the compose project, as the com.docker.compose.project label
	file string // the user's compose file; "" for the embedded one
	// embedded is true for the embedded file: kbf made its containers and
	// recreates them when they differ. A user's file may name containers
	// docker compose made; kbf uses those as they are.
	embedded bool
	image    string
	services map[string]types.ServiceConfig
	// unsupported says, per service, why kbf cannot create its container
	// itself (a compose key it does not implement); nil when it can.
	unsupported map[string]error
	network     string // the one network's name
	netKey      string // its key in the file
	netErr      error  // why kbf cannot create the network itself
	order       []string
	nodes       map[string]node
	byID        map[int32]string
	// configured are the services whose environment --config changed.
	configured map[string]bool
}

// node is what the Kafka side needs to know of a service.
type node struct {
	id         int32
	broker     bool   // process.roles includes broker
	controller bool   // process.roles includes controller
	addr       string // the host:port a broker is reached on from the host
	port       int    // that port, as published
	portVar    string // the variable that sets it in the embedded file, e.g. KBF_K1_PORT
}

func (p *project) brokerIDs() []int32 {
	var ids []int32
	for _, n := range p.nodes {
		if n.broker {
			ids = append(ids, n.id)
		}
	}
	slices.Sort(ids)
	return ids
}

// source is where a project comes from and how it is shaped.
type source struct {
	file        string // the user's compose file; "" for the embedded one
	projectName string // as docker compose -p; "" for the file's own
	env         map[string]string
	brokers     int  // the embedded cluster's brokers; 0 for the file's 3
	controllers int  // the embedded cluster's controllers; 0 for the file's 1
	combined    bool // the embedded cluster's brokers are its controllers too
	config      []Setting
	diskLimits  map[string]string // service → tmpfs size on its log dirs
	faultDisks  map[string]string // service → host directory bound on its log dir
}

var (
	defaultOnce sync.Once
	defaultProj *project
	defaultErr  error
)

// defaultProject is the embedded compose file with no variables set.
func defaultProject() (*project, error) {
	defaultOnce.Do(func() {
		defaultProj, defaultErr = loadProject(context.Background(), source{env: map[string]string{}})
	})
	return defaultProj, defaultErr
}

// parseProject loads file as if it were the embedded compose file.
func parseProject(ctx context.Context, file []byte, env map[string]string) (*project, error) {
	return load(ctx, file, source{env: env})
}

// loadProject loads the compose file src names, shapes and configures it.
func loadProject(ctx context.Context, src source) (*project, error) {
	if src.file == "" {
		return load(ctx, composeFile, src)
	}
	if src.brokers != 0 || src.controllers != 0 || src.combined {
		return nil, invalidf("--brokers and --controllers shape kbf's own cluster; the cluster of %s is the one it describes", src.file)
	}
	// Only a regular file: a named pipe or a device would block or never end.
	b, err := regfile.ReadFile(src.file)
	if err != nil {
		return nil, invalidf("compose file: %w", err)
	}
	return load(ctx, b, src)
}

func load(ctx context.Context, file []byte, src source) (*project, error) {
	filename, dir, name, forced := "compose.yaml", ".", Project, true
	if src.file == "" && src.projectName != "" {
		if err := checkProjectName(src.projectName); err != nil {
			return nil, invalid{err}
		}
		name = src.projectName
	}
	if src.file != "" {
		abs, err := filepath.Abs(src.file)
		if err != nil {
			return nil, invalidf("compose file %s: %w", src.file, err)
		}
		filename, dir = abs, filepath.Dir(abs)
		// As docker compose: -p, else the file's name:, else its directory.
		name, forced = loader.NormalizeProjectName(filepath.Base(dir)), false
		if src.projectName != "" {
			name, forced = src.projectName, true
		}
	}
	p, err := loader.LoadWithContext(ctx, types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: filename, Content: file}},
		Environment: types.Mapping(src.env),
	}, func(o *loader.Options) {
		o.SetProjectName(name, forced)
		o.SkipResolveEnvironment = true
	})
	if err != nil {
		return nil, invalidf("compose file: %w", err)
	}
	if src.file == "" {
		if p, err = resize(p, src.brokers, src.controllers, src.combined, src.env); err != nil {
			return nil, invalid{err}
		}
		rename(p)
	}
	configured, err := applyConfig(p, src.config)
	if err != nil {
		return nil, invalid{err}
	}
	if err := limitDisks(p, src.diskLimits); err != nil {
		return nil, invalid{err}
	}
	if err := bindFaultDisks(p, src.faultDisks); err != nil {
		return nil, invalid{err}
	}
	proj, err := analyse(ctx, p, src.file)
	if err != nil {
		return nil, err
	}
	proj.configured = configured
	return proj, nil
}

// where names the compose file in messages.
func where(file string) string {
	if file == "" {
		return "compose file"
	}
	return file
}

// analyse reads the nodes out of a loaded compose file.
func analyse(ctx context.Context, p *types.Project, file string) (*project, error) {
	embedded := file == ""
	fail := func(format string, a ...any) error {
		return invalidf(where(file)+": "+format, a...)
	}
	proj := &project{
		name:        p.Name,
		file:        file,
		embedded:    embedded,
		services:    make(map[string]types.ServiceConfig),
		unsupported: make(map[string]error),
		nodes:       make(map[string]node),
		byID:        make(map[int32]string),
	}
	for k, n := range p.Networks {
		proj.netKey, proj.network = k, n.Name
		if err := checkNetwork(n); err != nil {
			proj.netErr = fmt.Errorf("network %s: %w", k, err)
		}
	}
	if len(p.Networks) != 1 {
		proj.netErr = fmt.Errorf("want exactly one network, got %d", len(p.Networks))
	}
	if embedded && proj.netErr != nil {
		return nil, fail("%w", proj.netErr)
	}
	ports := make(map[string]string) // published port → service
	for _, name := range slices.Sorted(maps.Keys(p.Services)) {
		s := p.Services[name]
		err := checkSubset(s)
		if err == nil && len(p.Networks) == 1 {
			if _, ok := s.Networks[proj.netKey]; !ok || len(s.Networks) != 1 {
				err = fmt.Errorf("want network %s only", proj.netKey)
			}
		}
		if err != nil {
			if embedded {
				return nil, fail("service %s: %w", name, err)
			}
			proj.unsupported[name] = err
		}
		n, err := nodeOf(name, s, embedded)
		if err != nil {
			return nil, fail("service %s: %w", name, err)
		}
		if proj.image == "" {
			proj.image = s.Image
		} else if s.Image != proj.image {
			return nil, fail("services run different images (%s, %s)", proj.image, s.Image)
		}
		if other, ok := proj.byID[n.id]; ok {
			return nil, fail("services %s and %s are both node %d (KAFKA_NODE_ID)", other, name, n.id)
		}
		for _, pc := range s.Ports {
			if other, ok := ports[pc.Published]; ok {
				if embedded {
					return nil, invalidf("%s and %s both name port %s", portVar(other), portVar(name), pc.Published)
				}
				return nil, fail("services %s and %s both publish port %s", other, name, pc.Published)
			}
			ports[pc.Published] = name
		}
		proj.services[name] = s
		proj.nodes[name] = n
		proj.byID[n.id] = name
	}
	var err error
	if proj.order, err = startOrder(ctx, p); err != nil {
		return nil, fail("%w", err)
	}
	if len(proj.brokerIDs()) == 0 {
		return nil, fail("no broker (no service has broker in KAFKA_PROCESS_ROLES)")
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(proj.nodes)), func(n node) bool { return n.controller }) {
		return nil, fail("no KRaft controller (no service has controller in KAFKA_PROCESS_ROLES): kbf measures KRaft clusters")
	}
	return proj, nil
}

// portVar names the variable that sets a broker service's port.
func portVar(service string) string { return "KBF_" + strings.ToUpper(service) + "_PORT" }

// nodeOf reads a service's Kafka identity from its environment, in the
// apache/kafka image's convention (KAFKA_NODE_ID for node.id, ...).
func nodeOf(name string, s types.ServiceConfig, embedded bool) (node, error) {
	get := func(k string) string {
		if v := s.Environment[k]; v != nil {
			return *v
		}
		return ""
	}
	if get("KAFKA_NODE_ID") == "" {
		return node{}, errors.New("not a Kafka node: no KAFKA_NODE_ID in its environment (kbf reads each node from its KAFKA_* settings, as the apache/kafka image does)")
	}
	id, err := strconv.ParseInt(get("KAFKA_NODE_ID"), 10, 32)
	if err != nil {
		return node{}, fmt.Errorf("KAFKA_NODE_ID %q: not a node id", get("KAFKA_NODE_ID"))
	}
	n := node{id: int32(id)}
	if embedded {
		n.portVar = portVar(name)
	}
	for _, r := range strings.Split(get("KAFKA_PROCESS_ROLES"), ",") {
		switch strings.TrimSpace(r) {
		case "broker":
			n.broker = true
		case "controller":
			n.controller = true
		}
	}
	if !n.broker && !n.controller {
		return node{}, fmt.Errorf("KAFKA_PROCESS_ROLES %q: want broker, controller or both (kbf measures KRaft clusters)", get("KAFKA_PROCESS_ROLES"))
	}
	if !n.broker {
		return n, nil
	}
	n.addr, n.port, err = hostAddr(s, get("KAFKA_ADVERTISED_LISTENERS"))
	if err != nil {
		return node{}, err
	}
	return n, nil
}

// hostAddr finds the address a broker is reached on from the host: an
// advertised listener on a port the service publishes. A client that
// bootstraps there is then sent to the same address again, so the
// listener's host must be one the host resolves to itself.
func hostAddr(s types.ServiceConfig, advertised string) (string, int, error) {
	published := make(map[string]types.ServicePortConfig)
	for _, pc := range s.Ports {
		published[pc.Published] = pc
	}
	if advertised == "" {
		// Kafka advertises its listeners; with one published port, it is that.
		if len(s.Ports) != 1 {
			return "", 0, fmt.Errorf("no KAFKA_ADVERTISED_LISTENERS and %d published ports: kbf cannot tell which listener the host reaches; publish one port and advertise it as 127.0.0.1:PORT", len(s.Ports))
		}
		pc := s.Ports[0]
		port, err := strconv.Atoi(pc.Published)
		if err != nil || port < 1 || port > 65535 {
			return "", 0, fmt.Errorf("published port %q: not a port", pc.Published)
		}
		host := pc.HostIP
		if host == "" || host == "0.0.0.0" {
			host = "127.0.0.1"
		}
		return net.JoinHostPort(host, pc.Published), port, nil
	}
	for _, l := range strings.Split(advertised, ",") {
		_, hostport, ok := strings.Cut(strings.TrimSpace(l), "://")
		if !ok {
			continue
		}
		host, p, err := net.SplitHostPort(hostport)
		if err != nil {
			continue
		}
		if _, ok := published[p]; !ok || !hostLocal(host) {
			continue
		}
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			continue
		}
		if host == "" || host == "0.0.0.0" {
			host = "127.0.0.1"
		}
		return net.JoinHostPort(host, p), port, nil
	}
	var pub []string
	for _, pc := range s.Ports {
		pub = append(pub, pc.Published)
	}
	if len(pub) == 0 {
		pub = []string{"none"}
	}
	return "", 0, fmt.Errorf("KAFKA_ADVERTISED_LISTENERS %s: no listener is advertised on localhost at a port the service publishes (ports: %s), so kbf on the host cannot reach this broker; publish one and advertise it as localhost:PORT",
		advertised, strings.Join(pub, ","))
}

// hostLocal reports whether host names the host itself.
func hostLocal(host string) bool {
	switch host {
	case "", "localhost", "0.0.0.0", "::", "::1":
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// startOrder sorts services so each comes after those it depends on, in
// compose-go's own dependency order (which also refuses a cycle); services
// at the same depth go by name, so the order is the same on every run.
func startOrder(ctx context.Context, p *types.Project) ([]string, error) {
	var mu sync.Mutex
	depth := make(map[string]int, len(p.Services))
	err := graph.InDependencyOrder(ctx, p, func(_ context.Context, name string, s types.ServiceConfig) error {
		mu.Lock()
		defer mu.Unlock()
		d := 0
		for dep := range s.DependsOn {
			d = max(d, depth[dep]+1) // visited before name: compose-go's promise
		}
		depth[name] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	order := slices.Collect(maps.Keys(depth))
	slices.SortFunc(order, func(a, b string) int {
		if depth[a] != depth[b] {
			return depth[a] - depth[b]
		}
		return strings.Compare(a, b)
	})
	return order, nil
}

// resize reshapes the embedded cluster to brokers k1…kN and controllers
// c1…cM, each made from the file's own k1 or c1 as a template, so the
// file stays the one definition of a node. Zero keeps the file's count.
// combined makes every broker a controller too (process.roles
// broker,controller, as many small clusters run), and no c node.
func resize(p *types.Project, brokers, controllers int, combined bool, env map[string]string) (*types.Project, error) {
	if brokers == 0 {
		brokers = 3
	}
	if controllers == 0 {
		controllers = 1
	}
	switch {
	case brokers < 1 || brokers > 9:
		return nil, fmt.Errorf("--brokers %d: want 1 to 9", brokers)
	case combined && brokers%2 == 0:
		return nil, fmt.Errorf("--combined with --brokers %d: the brokers are the quorum, so want an odd number (a quorum of %d survives no more failures than one of %d)", brokers, brokers, brokers-1)
	case combined:
		controllers = 0
	case controllers != 1 && controllers != 3:
		return nil, fmt.Errorf("--controllers %d: want 1 or 3 (a quorum of 2 survives no failure)", controllers)
	case brokers == 3 && controllers == 1:
		return p, nil
	}
	kt, ok1 := p.Services["k1"]
	ct, ok2 := p.Services["c1"]
	if !ok1 || !ok2 {
		return nil, errors.New("the embedded compose file has no k1 or c1 to make nodes from")
	}
	q := *p
	q.Services = make(types.Services)
	var voters, ctrls []string
	for i := 1; i <= controllers; i++ {
		voters = append(voters, fmt.Sprintf("%d@c%d:9093", 99+i, i))
		ctrls = append(ctrls, fmt.Sprintf("c%d", i))
	}
	if combined {
		for i := 1; i <= brokers; i++ {
			voters = append(voters, fmt.Sprintf("%d@k%d:9093", i, i))
		}
	}
	deps := types.DependsOnConfig{}
	for _, c := range ctrls {
		deps[c] = types.ServiceDependency{Condition: types.ServiceConditionStarted, Required: true}
	}
	node := func(t types.ServiceConfig, name string) types.ServiceConfig {
		s := t
		s.Name, s.Hostname = name, name
		s.Environment = maps.Clone(t.Environment)
		s.Environment["KAFKA_CONTROLLER_QUORUM_VOTERS"] = ptr(strings.Join(voters, ","))
		s.Ports = nil
		s.DependsOn = nil
		return s
	}
	for i := 1; i <= controllers; i++ {
		name := fmt.Sprintf("c%d", i)
		s := node(ct, name)
		s.Environment["KAFKA_NODE_ID"] = ptr(strconv.Itoa(99 + i))
		q.Services[name] = s
	}
	for i := 1; i <= brokers; i++ {
		name := fmt.Sprintf("k%d", i)
		port := strconv.Itoa(19091 + i)
		if v, ok := env[portVar(name)]; ok && v != "" {
			port = v
		}
		s := node(kt, name)
		s.Environment["KAFKA_NODE_ID"] = ptr(strconv.Itoa(i))
		s.Environment["KAFKA_LISTENERS"] = ptr("INTERNAL://:9092,EXTERNAL://:" + port)
		s.Environment["KAFKA_ADVERTISED_LISTENERS"] = ptr("INTERNAL://" + name + ":9092,EXTERNAL://127.0.0.1:" + port)
		target, err := strconv.ParseUint(port, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: not a port (1-65535)", portVar(name), port)
		}
		s.Ports = []types.ServicePortConfig{{HostIP: "127.0.0.1", Target: uint32(target), Published: port, Protocol: "tcp"}}
		s.DependsOn = maps.Clone(deps)
		if combined {
			// Its controller's listener and heap beside the broker's.
			s.Environment["KAFKA_PROCESS_ROLES"] = ptr("broker,controller")
			s.Environment["KAFKA_LISTENERS"] = ptr("INTERNAL://:9092,EXTERNAL://:" + port + ",CONTROLLER://:9093")
			s.Environment["KAFKA_HEAP_OPTS"] = ptr("-Xmx640m -Xms640m")
			s.DependsOn = nil
		}
		q.Services[name] = s
	}
	return &q, nil
}

func ptr(s string) *string { return &s }

// rename gives the embedded cluster's containers and network its project's
// name (kbf-k1 and kbf in project kbf, kbf-2-k1 and kbf-2 in kbf-2), so that
// clusters of several projects run side by side.
func rename(p *types.Project) {
	for name, s := range p.Services {
		s.ContainerName = p.Name + "-" + name
		p.Services[name] = s
	}
	for k, n := range p.Networks {
		n.Name = p.Name
		p.Networks[k] = n
	}
}

// checkProjectName refuses a project name Docker Compose would refuse: it
// names the embedded cluster's containers and network too.
func checkProjectName(name string) error {
	if loader.NormalizeProjectName(name) != name || name == "" {
		return fmt.Errorf("project name %q: want lowercase letters, digits, dashes and underscores, starting with a letter or digit", name)
	}
	return nil
}

// Setting is one Kafka server property set on one node, or on every node
// when Node is "".
type Setting struct {
	Node  string // a service name, e.g. c1
	Key   string // the property, e.g. broker.session.timeout.ms
	Value string
}

func (s Setting) String() string {
	if s.Node == "" {
		return s.Key + "=" + s.Value
	}
	return s.Node + ":" + s.Key + "=" + s.Value
}

var propertyKey = regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*$`)

// ParseSetting reads KEY=VALUE (every node) or NODE:KEY=VALUE (one node),
// as --config takes it.
func ParseSetting(s string) (Setting, error) {
	left, value, ok := strings.Cut(s, "=")
	if !ok {
		return Setting{}, fmt.Errorf("--config %q: want KEY=VALUE or NODE:KEY=VALUE, e.g. c1:broker.session.timeout.ms=4000", s)
	}
	var st Setting
	st.Value = value
	if n, k, ok := strings.Cut(left, ":"); ok {
		st.Node, st.Key = n, k
		if n == "" {
			return Setting{}, fmt.Errorf("--config %q: no node before the colon", s)
		}
	} else {
		st.Key = left
	}
	if !propertyKey.MatchString(st.Key) {
		return Setting{}, fmt.Errorf("--config %q: %q is not a Kafka property name (lower case, dotted, e.g. broker.session.timeout.ms)", s, st.Key)
	}
	if fixed[st.Key] {
		return Setting{}, fmt.Errorf("--config %q: %s is part of the cluster's shape, which the compose file sets; to change it use your own file with -f", s, st.Key)
	}
	if !KnownProperty(st.Key) {
		hint := ""
		if near := nearestProperty(st.Key); near != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", near)
		}
		return Setting{}, fmt.Errorf("--config %q: %s is not a property Kafka's brokers and controllers know%s; check its spelling", s, st.Key, hint)
	}
	return st, nil
}

// kafkaProperties are the properties Kafka's server configuration defines
// (kafka.server.KafkaConfig's ConfigDef), one a line, as Kafka 4.3.1's jars
// list them: a property no node knows is a misspelling, which Kafka would
// take in silence and the trial would measure the defaults under its name.
//
//go:embed kafka-properties.txt
var kafkaPropertiesFile string

var kafkaProperties = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(kafkaPropertiesFile) {
		m[k] = true
	}
	return m
}()

// KnownProperty reports whether Kafka's nodes know key: one of their
// properties, or one set for a listener (listener.name.NAME.…), whose
// names are the user's.
func KnownProperty(key string) bool {
	return kafkaProperties[key] || strings.HasPrefix(key, "listener.name.")
}

// nearestProperty is the known property nearest key, when one is within
// a few edits of it.
func nearestProperty(key string) string {
	best, bestD := "", 4
	for k := range kafkaProperties {
		if d := spell.Distance(key, k); d < bestD || d == bestD && best != "" && k < best {
			best, bestD = k, d
		}
	}
	return best
}

// fixed are the properties that make the cluster what kbf reads it as: its
// nodes, roles and listeners. --config may not change them.
var fixed = map[string]bool{
	"node.id": true, "process.roles": true, "listeners": true, "advertised.listeners": true,
	"controller.quorum.voters": true, "controller.quorum.bootstrap.servers": true,
	"controller.listener.names": true, "listener.security.protocol.map": true,
	"inter.broker.listener.name": true, "log.dirs": true,
}

var tmpfsSize = regexp.MustCompile(`^[1-9][0-9]*[kmg]?$`)

// limitDisks mounts a tmpfs of the given size on each service's log
// directories (KAFKA_LOG_DIRS, else KAFKA_LOG_DIR).
func limitDisks(p *types.Project, limits map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		size := limits[name]
		s, ok := p.Services[name]
		if !ok || s.Environment["KAFKA_NODE_ID"] == nil {
			return fmt.Errorf("disk limit: no Kafka node %s", name)
		}
		if !tmpfsSize.MatchString(size) {
			return fmt.Errorf("disk size %q: want a size such as 128m (bytes, k, m or g)", size)
		}
		dirs := LogDirs(s)
		if len(dirs) == 0 {
			return fmt.Errorf("service %s sets no KAFKA_LOG_DIRS: set it, so that kbf knows which directory to limit", name)
		}
		s.Tmpfs = slices.Clone(s.Tmpfs)
		for _, d := range dirs {
			// The engine gives a tmpfs the owner of the image's directory
			// beneath it (root, in kbf's image), ignoring mode; both images
			// run Kafka as appuser, uid 1000, which must format it.
			s.Tmpfs = append(s.Tmpfs, d+":size="+size+",uid=1000,gid=1000")
		}
		p.Services[name] = s
	}
	return nil
}

// faultDiskExt marks the bind of a FUSE layer's mount point on a log
// directory (bindFaultDisks), the only bind kbf makes.
const faultDiskExt = "x-kbf-fault-disk"

// bindFaultDisks binds each service's host directory on its one log
// directory (KAFKA_LOG_DIRS, else KAFKA_LOG_DIR).
func bindFaultDisks(p *types.Project, mounts map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(mounts)) {
		s, ok := p.Services[name]
		if !ok || s.Environment["KAFKA_NODE_ID"] == nil {
			return fmt.Errorf("fault disk: no Kafka node %s", name)
		}
		if !filepath.IsAbs(mounts[name]) {
			return fmt.Errorf("fault disk of %s: %q is not an absolute path", name, mounts[name])
		}
		dirs := LogDirs(s)
		if len(dirs) != 1 {
			return fmt.Errorf("service %s sets %d log directories: a disk fault serves one, set KAFKA_LOG_DIRS to one directory", name, len(dirs))
		}
		s.Volumes = append(slices.Clone(s.Volumes), types.ServiceVolumeConfig{
			Type: types.VolumeTypeBind, Source: mounts[name], Target: dirs[0],
			Extensions: types.Extensions{faultDiskExt: true},
		})
		p.Services[name] = s
	}
	return nil
}

// faultDiskBinds are the service's binds of FUSE layers, as the engine
// takes them ("SOURCE:TARGET").
func faultDiskBinds(s types.ServiceConfig) []string {
	var binds []string
	for _, v := range s.Volumes {
		if _, ok := v.Extensions[faultDiskExt]; ok && v.Type == types.VolumeTypeBind {
			binds = append(binds, v.Source+":"+v.Target)
		}
	}
	return binds
}

// ownDisk reports whether the service's log directory is a disk of its
// own, made for a fault (a tmpfs, a FUSE layer): a node moved onto or off
// one starts empty.
func ownDisk(s types.ServiceConfig) bool {
	return len(s.Tmpfs) > 0 || len(faultDiskBinds(s)) > 0
}

// LogDirs are the log directories a node's environment sets, as the
// apache/kafka image reads them: KAFKA_LOG_DIRS, else KAFKA_LOG_DIR.
func LogDirs(s types.ServiceConfig) []string {
	for _, k := range []string{"KAFKA_LOG_DIRS", "KAFKA_LOG_DIR"} {
		if v := s.Environment[k]; v != nil && strings.TrimSpace(*v) != "" {
			var dirs []string
			for _, d := range strings.Split(*v, ",") {
				if d = strings.TrimSpace(d); d != "" {
					dirs = append(dirs, d)
				}
			}
			return dirs
		}
	}
	return nil
}

// EnvName is the environment variable that sets a Kafka property in the
// apache/kafka image: KAFKA_ and the key upper-cased, "." as "_", "_" as
// "__" and "-" as "___".
func EnvName(key string) string {
	k := strings.ReplaceAll(key, "_", "__")
	k = strings.ReplaceAll(k, "-", "___")
	k = strings.ReplaceAll(k, ".", "_")
	return "KAFKA_" + strings.ToUpper(k)
}

// applyConfig sets each setting in the environment of its nodes (only the
// Kafka nodes: a setting on every node means every KAFKA_NODE_ID), in
// order, and returns the services it changed.
func applyConfig(p *types.Project, settings []Setting) (map[string]bool, error) {
	changed := make(map[string]bool)
	var nodes []string
	for _, name := range slices.Sorted(maps.Keys(p.Services)) {
		if p.Services[name].Environment["KAFKA_NODE_ID"] != nil {
			nodes = append(nodes, name)
		}
	}
	for _, st := range settings {
		targets := nodes
		if st.Node != "" {
			if !slices.Contains(nodes, st.Node) {
				return nil, fmt.Errorf("--config %s: no node %s (nodes: %s)", st, st.Node, strings.Join(nodes, " "))
			}
			targets = []string{st.Node}
		}
		for _, name := range targets {
			s := p.Services[name]
			s.Environment = maps.Clone(s.Environment)
			s.Environment[EnvName(st.Key)] = ptr(st.Value)
			p.Services[name] = s
			changed[name] = true
		}
	}
	return changed, nil
}
