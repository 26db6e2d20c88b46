package compose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
)

// The phases of Up, in order.
const (
	PhaseContainers = "containers"
	PhaseBrokers    = "brokers registered"
	PhaseTopics     = "topics"
	PhaseISR        = "ISR full"
	PhaseLeaders    = "leaders preferred"
	PhaseAnswer     = "leaders answer"
)

// Phase is one step of Up and how long it took.
type Phase struct {
	Name   string
	Took   time.Duration
	Detail string // what the step did, e.g. "created c1 k1 k2 k3"
}

// UpReport tells what Up did.
type UpReport struct {
	Phases []Phase
	Took   time.Duration
	// Reused is true when every container was already running as
	// configured: Up only checked Kafka.
	Reused bool
	// The services whose containers Up created, started, or removed and
	// created again, in start order.
	Created, Started, Recreated []string
	// Removed are the containers of the project that are no service of it
	// any more (a smaller cluster than the last), which Up removed first.
	Removed []string
}

// Up brings the cluster to its starting shape and returns when Kafka is
// whole: every container running as configured, every broker registered
// and unfenced, the topics present with their shape, every ISR full and
// every leader the preferred one. A running, healthy stack is reused;
// stopped containers are started (they keep their data), containers made
// from another configuration or image are recreated, missing ones created.
// When the controller's container is (re)created, the brokers' are too:
// their metadata would be ahead of the new controller's.
//
// ctx bounds the whole wait; its deadline is what `kbf up --timeout` sets.
// Up takes the cluster's lock (Lock) once the engine answers: a cluster
// another kbf uses is refused before anything is changed.
func (c *Cluster) Up(ctx context.Context) (*UpReport, error) {
	start := c.now()
	rep := &UpReport{}
	phase := func(name string, t0 time.Time, detail string) {
		p := Phase{Name: name, Took: c.now().Sub(t0), Detail: detail}
		rep.Phases = append(rep.Phases, p)
		if c.progress != nil {
			c.progress(p)
		}
	}

	t0 := c.now()
	if err := c.ping(ctx); err != nil {
		return nil, err
	}
	if err := c.Lock(); err != nil {
		return nil, err
	}
	if err := c.upContainers(ctx, rep); err != nil {
		return nil, err
	}
	phase(PhaseContainers, t0, containersDetail(rep))

	t0 = c.now()
	if err := c.WaitBrokers(ctx); err != nil {
		return nil, err
	}
	phase(PhaseBrokers, t0, "nodes "+joinIDs(c.proj.brokerIDs()))

	t0 = c.now()
	created, err := c.EnsureTopics(ctx)
	if err != nil {
		return nil, err
	}
	detail := "present"
	if len(created) > 0 {
		detail = "created " + strings.Join(created, " ")
	}
	phase(PhaseTopics, t0, detail)

	t0 = c.now()
	if err := c.admin.WaitISRFull(ctx, c.admin.TopicNames()...); err != nil {
		return nil, err
	}
	phase(PhaseISR, t0, "")

	t0 = c.now()
	elected, err := c.admin.EnsurePreferred(ctx)
	if err != nil {
		return nil, err
	}
	detail = "already"
	if elected {
		detail = "after a preferred leader election"
	}
	phase(PhaseLeaders, t0, detail)

	// A probe's first request must find every leader serving: one named
	// by the controller may not have applied its election yet.
	t0 = c.now()
	if err := c.admin.WaitLeadersAnswer(ctx, c.admin.TopicNames()...); err != nil {
		return nil, err
	}
	phase(PhaseAnswer, t0, "")

	rep.Took = c.now().Sub(start)
	return rep, nil
}

func containersDetail(rep *UpReport) string {
	if rep.Reused {
		return "reused"
	}
	return rep.Changes()
}

// Changes says what Up did to the containers — "removed k4, recreated c1
// k1 k2 k3" — or "" when it only checked Kafka.
func (rep *UpReport) Changes() string {
	var parts []string
	for _, a := range []struct {
		verb string
		svcs []string
	}{{"removed", rep.Removed}, {"recreated", rep.Recreated}, {"created", rep.Created}, {"started", rep.Started}} {
		if len(a.svcs) > 0 {
			parts = append(parts, a.verb+" "+strings.Join(a.svcs, " "))
		}
	}
	return strings.Join(parts, ", ")
}

// action is what Up does to one service's container.
type action int

const (
	keep     action = iota // running as configured
	start                  // stopped, as configured: start it, keeping its data
	create                 // missing
	recreate               // made from another configuration: remove, create
	unpause                // paused (a pause fault left in place): unpause it
)

// resume is the action for a container kept as it is: unpaused, left
// running or started, by its state.
func resume(ci *container.InspectResponse) action {
	switch {
	case ci.State != nil && ci.State.Paused:
		return unpause
	case ci.State != nil && ci.State.Running:
		return keep
	}
	return start
}

// plan decides each service's action from its container (nil if missing).
// reshaped is true when nodes of the project were removed (orphans): the
// rest is made anew, since a quorum or a replica set that named the removed
// nodes would never be whole again.
func (c *Cluster) plan(conts map[string]*container.InspectResponse, imageID string, netOK, reshaped bool) map[string]action {
	acts := make(map[string]action)
	for _, svc := range c.proj.order {
		ci := conts[svc]
		switch {
		case ci == nil:
			acts[svc] = create
		case c.adopted(ci):
			// Someone else's configuration, which kbf does not judge.
			acts[svc] = resume(ci)
		case !netOK || reshaped || ci.Config == nil || ci.Config.Labels[labelConfigHash] != c.proj.spec(svc, imageID).hash() ||
			ci.Config.Labels[labelProject] != c.proj.name:
			acts[svc] = recreate
		case imageID != "" && ci.Image != imageID:
			acts[svc] = recreate
		default:
			acts[svc] = resume(ci)
		}
	}
	// A new controller has an empty metadata log: brokers that kept theirs
	// would be ahead of it.
	for svc, n := range c.proj.nodes {
		if !n.broker && (acts[svc] == create || acts[svc] == recreate) {
			for b, bn := range c.proj.nodes {
				if bn.broker && conts[b] != nil {
					acts[b] = recreate
				}
			}
		}
	}
	// A broker made anew is empty, and a partition whose only replica it
	// held (the one-replica topic's) can never be led again: the
	// controller's metadata still names the lost replica, and no other holds
	// the data. The whole cluster is then made anew. A broker whose log
	// directory is or was a tmpfs counts too: the one-replica topic moves
	// off it, or back (topicsFor), which only a new cluster does.
	sole := c.soleReplicas()
	for svc := range c.proj.nodes {
		remade := acts[svc] == recreate || acts[svc] == create && len(conts) > 0
		if !remade || !sole[svc] && !c.onTmpfs(svc, conts[svc]) {
			continue
		}
		for n := range c.proj.nodes {
			if conts[n] != nil && !c.adopted(conts[n]) {
				acts[n] = recreate
			}
		}
		break
	}
	return acts
}

// onTmpfs reports whether the service's log directory is a tmpfs or a
// FUSE layer's mount point in its configuration or in its container ci
// (nil: none).
func (c *Cluster) onTmpfs(svc string, ci *container.InspectResponse) bool {
	if ownDisk(c.proj.services[svc]) {
		return true
	}
	return ci != nil && ci.HostConfig != nil && (len(ci.HostConfig.Tmpfs) > 0 || len(ci.HostConfig.Binds) > 0)
}

// soleReplicas are the brokers, by service, that hold the only replica of
// a partition of the cluster's topics.
func (c *Cluster) soleReplicas() map[string]bool {
	sole := map[string]bool{}
	ids := c.proj.brokerIDs()
	for _, t := range c.topics {
		for _, replicas := range t.Assignment(ids) {
			if len(replicas) == 1 {
				sole[c.proj.byID[replicas[0]]] = true
			}
		}
	}
	return sole
}

// adopted reports whether a container of a user's compose file was made by
// someone else (docker compose): kbf uses it as it is, and never removes
// it to recreate it.
func (c *Cluster) adopted(ci *container.InspectResponse) bool {
	return !c.proj.embedded && (ci.Config == nil || ci.Config.Labels[labelKBF] != "true")
}

// checkPlan refuses, before anything is changed, what kbf cannot do: create
// a container of a service that uses compose keys kbf does not implement,
// or change the configuration of a container it did not make.
func (c *Cluster) checkPlan(conts map[string]*container.InspectResponse, acts map[string]action) error {
	for _, svc := range c.proj.order {
		ci := conts[svc]
		switch {
		case ci != nil && c.adopted(ci) && c.proj.configured[svc]:
			return invalidf("service %s: --config cannot change container %s, which kbf did not create: put the setting in %s and run docker compose -f %s up -d",
				svc, c.ContainerName(svc), c.proj.file, c.proj.file)
		case ci != nil && c.adopted(ci) && acts[svc] == recreate:
			return invalidf("service %s: container %s, which kbf did not create, would have to be made anew: docker compose -f %s up -d --force-recreate does it",
				svc, c.ContainerName(svc), c.proj.file)
		case acts[svc] != create && acts[svc] != recreate:
		case c.proj.unsupported[svc] != nil:
			return invalidf("service %s: kbf cannot create its container itself (%v): start the stack with docker compose -f %s up -d, and kbf uses it as it is",
				svc, c.proj.unsupported[svc], c.proj.file)
		case c.proj.netErr != nil:
			return invalidf("%s: kbf cannot create the network itself (%v): start the stack with docker compose -f %s up -d, and kbf uses it as it is",
				c.proj.file, c.proj.netErr, c.proj.file)
		}
	}
	return nil
}

// upContainers brings every container to running as configured.
func (c *Cluster) upContainers(ctx context.Context, rep *UpReport) error {
	conts := make(map[string]*container.InspectResponse)
	for _, svc := range c.proj.order {
		ci, err := c.inspect(ctx, svc)
		if err != nil {
			return err
		}
		conts[svc] = ci
	}
	net, err := c.networkByName(ctx, c.proj.network)
	if err != nil {
		return err
	}
	imageID, err := c.imageID(ctx)
	if err != nil {
		return err
	}
	// Containers left from a removed network cannot start again.
	netOK := net != nil
	if netOK {
		for _, ci := range conts {
			if ci != nil && !c.adopted(ci) && ci.NetworkSettings != nil {
				if ep := ci.NetworkSettings.Networks[c.proj.network]; ep == nil || ep.NetworkID != net.ID {
					netOK = false
				}
			}
		}
	}
	orphans, err := c.orphans(ctx)
	if err != nil {
		return err
	}
	acts := c.plan(conts, imageID, netOK, len(orphans) > 0)
	if err := c.checkPlan(conts, acts); err != nil {
		return err
	}

	all := len(orphans) == 0
	for _, svc := range c.proj.order {
		all = all && acts[svc] == keep
	}
	if all {
		rep.Reused = true
		return nil
	}
	if imageID == "" {
		if imageID, err = c.pull(ctx); err != nil {
			if imageID, err = c.fallBack(ctx, err); err != nil {
				return err
			}
		}
		// Labels carry the image's id; plan again now that it is known.
		acts = c.plan(conts, imageID, netOK, len(orphans) > 0)
	}
	// The nodes that no longer belong go first: a controller left running
	// from a larger quorum would lead the new one astray, and each holds
	// a port the new shape may publish again.
	for _, name := range orphans {
		if err := c.remove(ctx, name); err != nil {
			return err
		}
		rep.Removed = append(rep.Removed, name)
	}
	if err := c.checkPorts(conts, acts); err != nil {
		return err
	}
	// Remove what is to be recreated first: a running one holds its port.
	for _, svc := range c.proj.order {
		if acts[svc] == recreate {
			if err := c.remove(ctx, c.ContainerName(svc)); err != nil {
				return err
			}
		}
	}
	if net != nil && !netOK {
		if err := c.removeNetwork(ctx, net.ID); err != nil {
			return err
		}
		net = nil
	}
	if net == nil {
		if err := c.createNetwork(ctx); err != nil {
			return err
		}
	}
	for _, svc := range c.proj.order {
		name := c.ContainerName(svc)
		switch acts[svc] {
		case create, recreate:
			sp := c.proj.spec(svc, imageID)
			if _, err := c.docker.ContainerCreate(ctx, sp.Config, sp.Host, sp.Networking, nil, sp.Name); err != nil {
				return fmt.Errorf("create %s: %w", name, err)
			}
			if acts[svc] == create {
				rep.Created = append(rep.Created, svc)
			} else {
				rep.Recreated = append(rep.Recreated, svc)
			}
		case start:
			rep.Started = append(rep.Started, svc)
		case unpause:
			if err := c.docker.ContainerUnpause(ctx, name); err != nil {
				return fmt.Errorf("unpause %s: %w", name, err)
			}
			rep.Started = append(rep.Started, svc)
			continue
		default:
			continue
		}
		if err := c.docker.ContainerStart(ctx, name, container.StartOptions{}); err != nil {
			return fmt.Errorf("start %s: %w", name, err)
		}
	}
	return nil
}

// imageID returns the id of the image, or "" when it is not here.
func (c *Cluster) imageID(ctx context.Context) (string, error) { return c.imageOf(ctx, c.image) }

// imageOf returns the id of an image, or "" when it is not here.
func (c *Cluster) imageOf(ctx context.Context, name string) (string, error) {
	img, err := c.docker.ImageInspect(ctx, name)
	if isNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("inspect image %s: %w", name, err)
	}
	return img.ID, nil
}

// pull fetches the image, and returns its id.
func (c *Cluster) pull(ctx context.Context) (string, error) {
	fail := func(why error) error {
		return pullError{fmt.Errorf("image %s is not here and cannot be pulled (%s); build the offline image with make image and pass --image %s (or set KBF_IMAGE)",
			c.image, strings.TrimPrefix(why.Error(), "Error response from daemon: "), OfflineImage), why}
	}
	if c.proj.services[c.proj.order[0]].PullPolicy == "never" {
		return "", fail(fmt.Errorf("pull_policy is never"))
	}
	rc, err := c.docker.ImagePull(ctx, c.image, image.PullOptions{})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fail(err)
	}
	err = pullStreamError(rc)
	rc.Close()
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fail(err)
	}
	id, err := c.imageID(ctx)
	if err != nil {
		return "", err
	}
	if id == "" {
		return "", fail(fmt.Errorf("the pull ended without it"))
	}
	return id, nil
}

// fallBack runs the offline image when the default one could not be
// pulled: the one here, else one BuildOffline makes. A fresh machine with
// no registry then needs no step by hand. Any other image the user chose is
// not replaced: pullErr stands.
func (c *Cluster) fallBack(ctx context.Context, pullErr error) (string, error) {
	var pe pullError
	if c.image != DefaultImage || ctx.Err() != nil || !errors.As(pullErr, &pe) {
		return "", pullErr
	}
	id, err := c.imageOf(ctx, OfflineImage)
	if err != nil {
		return "", err
	}
	why := strings.TrimPrefix(pe.why.Error(), "Error response from daemon: ")
	if id == "" {
		if c.buildOffline == nil {
			return "", pullErr
		}
		c.say(fmt.Sprintf("%s cannot be pulled (%s): building the offline image %s (make image)", DefaultImage, why, OfflineImage))
		if err := c.buildOffline(ctx); err != nil {
			return "", fmt.Errorf("image %s cannot be pulled (%s), and building %s failed: %w", DefaultImage, why, OfflineImage, err)
		}
		if id, err = c.imageOf(ctx, OfflineImage); err != nil {
			return "", err
		}
		if id == "" {
			return "", fmt.Errorf("image %s cannot be pulled (%s), and building %s left no such image", DefaultImage, why, OfflineImage)
		}
	} else {
		c.say(fmt.Sprintf("%s cannot be pulled (%s): running %s, the offline image built here", DefaultImage, why, OfflineImage))
	}
	c.useImage(OfflineImage)
	return id, nil
}

// useImage makes every service run img.
func (c *Cluster) useImage(img string) {
	c.image, c.proj.image = img, img
	for name, s := range c.proj.services {
		s.Image = img
		c.proj.services[name] = s
	}
}

func (c *Cluster) say(msg string) {
	if c.notice != nil {
		c.notice(msg)
	}
}

// pullError is a failed pull: the whole message, and why.
type pullError struct{ err, why error }

func (e pullError) Error() string { return e.err.Error() }
func (e pullError) Unwrap() error { return e.why }

// pullStreamError reads a pull's progress stream to its end and returns the
// error the engine reports in it, if any: a failed pull still answers 200.
func pullStreamError(r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var m struct {
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		switch err := dec.Decode(&m); {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("read pull progress: %w", err)
		case m.ErrorDetail.Message != "":
			return errors.New(m.ErrorDetail.Message)
		case m.Error != "":
			return errors.New(m.Error)
		}
	}
}

// orphans are the containers of the project whose service the project no
// longer has — the nodes of a larger cluster than this one — by name. Those
// kbf made are removed by Up; one of a user's project that kbf did not make
// is refused, since kbf never removes what it did not create.
func (c *Cluster) orphans(ctx context.Context) ([]string, error) {
	list, err := c.docker.ContainerList(ctx, container.ListOptions{
		All:     true,
		Filters: filters.NewArgs(filters.Arg("label", labelProject+"="+c.proj.name)),
	})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	var names []string
	for _, ct := range list {
		svc := ct.Labels[labelService]
		if _, ok := c.proj.services[svc]; ok || ct.Labels[labelOneoff] == "True" || len(ct.Names) == 0 {
			continue
		}
		name := strings.TrimPrefix(ct.Names[0], "/")
		if !c.proj.embedded && ct.Labels[labelKBF] != "true" {
			return nil, invalidf("container %s of project %s is no service of %s: remove it (docker compose -f %s up -d --remove-orphans, or docker rm -f %s) and run kbf again",
				name, c.proj.name, c.proj.file, c.proj.file, name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// checkPorts makes sure each port a container is about to publish is free,
// so a taken port gets one clear error before anything is created.
func (c *Cluster) checkPorts(conts map[string]*container.InspectResponse, acts map[string]action) error {
	for _, svc := range c.proj.order {
		n := c.proj.nodes[svc]
		if n.port == 0 || acts[svc] == keep {
			continue
		}
		if ci := conts[svc]; acts[svc] == recreate && ci != nil && ci.State != nil && ci.State.Running {
			continue // its own container holds the port until it is removed
		}
		host, _, _ := net.SplitHostPort(n.addr)
		if err := c.portFreeWithin(host, n.port, portRetry); err != nil {
			how := "choose another port with " + n.portVar
			if n.portVar == "" {
				how = "publish another in " + c.proj.file
			}
			return fmt.Errorf("port %d on %s is in use, and broker %s needs it: free it or %s", n.port, host, svc, how)
		}
	}
	return nil
}

// portRetry is how long a port that is taken is tried again before it is
// called in use: a port in the ephemeral range may be held for an instant
// by an outgoing connection, or by a container that was just removed.
const portRetry = 2 * time.Second

// portFreeWithin asks portFree until the port is free or within has passed,
// and returns the last answer.
func (c *Cluster) portFreeWithin(host string, port int, within time.Duration) error {
	deadline := c.now().Add(within)
	for {
		err := c.portFree(host, port)
		if err == nil || !c.now().Before(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *Cluster) remove(ctx context.Context, name string) error {
	err := c.docker.ContainerRemove(ctx, name, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return nil
}

func (c *Cluster) removeNetwork(ctx context.Context, id string) error {
	if err := c.docker.NetworkRemove(ctx, id); err != nil && !isNotFound(err) {
		return fmt.Errorf("remove network %s: %w", c.proj.network, err)
	}
	return nil
}
