package testkafka

import (
	"net"
	"sync"
)

// Freezer pauses the connections of the listeners it makes, the way a
// paused process's are: they still accept, and nothing read or written
// moves until it is thawed. It makes a hang for a test (a frozen
// cluster: kfake.ListenFn(f.Listen)), nothing else: no claim about
// Kafka's timing is made with it. Its zero value is not frozen.
type Freezer struct {
	mu     sync.Mutex
	thawed chan struct{} // nil while not frozen; closed by thaw
}

// Freeze holds every connection from now on.
func (f *Freezer) Freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.thawed == nil {
		f.thawed = make(chan struct{})
	}
}

// Thaw lets them move again.
func (f *Freezer) Thaw() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.thawed != nil {
		close(f.thawed)
		f.thawed = nil
	}
}

// wait holds the caller while frozen, until thawed or closed.
func (f *Freezer) wait(closed <-chan struct{}) error {
	f.mu.Lock()
	ch := f.thawed
	f.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-closed:
		return net.ErrClosed
	}
}

// Listen listens as net.Listen does, with connections f freezes.
func (f *Freezer) Listen(network, addr string) (net.Listener, error) {
	ln, err := net.Listen(network, addr)
	if err != nil {
		return nil, err
	}
	return frozenListener{ln, f}, nil
}

type frozenListener struct {
	net.Listener
	f *Freezer
}

func (l frozenListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &frozenConn{Conn: c, f: l.f, closed: make(chan struct{})}, nil
}

type frozenConn struct {
	net.Conn
	f      *Freezer
	once   sync.Once
	closed chan struct{}
}

func (c *frozenConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if werr := c.f.wait(c.closed); werr != nil {
		return 0, werr
	}
	return n, err
}

func (c *frozenConn) Write(b []byte) (int, error) {
	if err := c.f.wait(c.closed); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}

func (c *frozenConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}
