// Package clusterlock keeps two kbf processes off one Docker cluster. A
// command that makes, faults, restarts or removes a cluster holds an
// exclusive flock(2) on a file named after that cluster (its Docker
// engine's endpoint and its compose project) for as long as it uses it; a
// second one is refused at once and told who holds it. The file holds
// only the holder's pid, command line and the time it took the lock, for
// that message: the lock is the kernel's, which drops it when its holder
// dies, so a file left behind by a dead kbf blocks nothing.
//
// The files live in the user's cache directory (os.UserCacheDir, then
// kbf/locks): docs/design.md says why there.
package clusterlock

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Key names a cluster: the Docker engine it runs on (the client's daemon
// host, unix:///var/run/docker.sock by default) and its compose project.
type Key struct {
	Endpoint, Project string
}

// Holder is who holds a cluster's lock, as its file says.
type Holder struct {
	PID     int
	Command string
	Since   time.Time
}

// ErrInUse marks a cluster another kbf holds (InUseError).
var ErrInUse = errors.New("the cluster is in use by another kbf")

// InUseError is the refusal of a cluster another kbf holds. Holder is
// zero when its file could not be read (the holder between its lock and
// its first write).
type InUseError struct {
	Project string
	Holder  Holder
}

// Error is the one line the user reads: who holds the cluster and what
// to do.
func (e *InUseError) Error() string {
	who := ""
	if e.Holder.PID > 0 {
		who = fmt.Sprintf(" (pid %d: %s, since %s)", e.Holder.PID, e.Holder.Command, clock(e.Holder.Since))
	}
	return fmt.Sprintf("the cluster %s is in use by another kbf%s: wait for it to end, or run on a cluster of your own (--file with --project-name)",
		e.Project, who)
}

// Is makes errors.Is(err, ErrInUse) true.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// Lasting says that trying again at once cannot help: a benchmark stops
// at the first trial refused, rather than count it as a failed trial.
func (e *InUseError) Lasting() bool { return true }

// clock is t as the holder's terminal showed it: the time of day, with
// the date when not today.
func clock(t time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	t = t.Local()
	if t.Format(time.DateOnly) != time.Now().Format(time.DateOnly) {
		return t.Format(time.DateTime)
	}
	return t.Format(time.TimeOnly)
}

// dir is where the lock files are; tests point it elsewhere.
var dir = defaultDir

func defaultDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "kbf", "locks"), nil
}

// path is k's lock file: the project readable, the endpoint hashed (it
// holds slashes and colons).
func path(k Key) (string, error) {
	d, err := dir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(k.Endpoint))
	return filepath.Join(d, safe(k.Project)+"-"+hex.EncodeToString(sum[:6])+".lock"), nil
}

// safe keeps a project name's letters, digits, '-', '_' and '.' (all a
// compose project may hold) and makes anything else '_'.
func safe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// held are the locks this process holds, each counted by its holders: a
// benchmark's pool and a test's cluster may hold one cluster twice, and
// flock would refuse the second open file.
var (
	mu   sync.Mutex
	held = map[Key]*lockFile{}
)

type lockFile struct {
	f *os.File
	n int
}

// Acquire takes k's lock for this process, or returns an *InUseError
// when another process holds it; it never waits. A process may take one
// lock several times; the lock is let go when every release has been
// called (each release once; more calls do nothing) or when the process
// ends. An error other than ErrInUse says the lock file could not be
// made.
func Acquire(k Key) (release func(), err error) {
	mu.Lock()
	defer mu.Unlock()
	if l := held[k]; l != nil {
		l.n++
		return releaser(k), nil
	}
	f, err := take(k)
	if err != nil {
		return nil, err
	}
	held[k] = &lockFile{f: f, n: 1}
	return releaser(k), nil
}

func releaser(k Key) func() {
	var once sync.Once
	return func() { once.Do(func() { drop(k) }) }
}

// drop counts one release of k's lock and lets it go at the last.
func drop(k Key) {
	mu.Lock()
	defer mu.Unlock()
	l := held[k]
	if l == nil {
		return
	}
	if l.n--; l.n > 0 {
		return
	}
	delete(held, k)
	// The holder's lines go before the lock, so that the file never names
	// a holder that has gone; the file stays, for the next kbf to lock.
	_ = l.f.Truncate(0)
	_ = unlock(l.f)
	_ = l.f.Close()
}

// take opens k's file and locks it, writing this process in it.
func take(k Key) (*os.File, error) {
	p, err := path(k)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(p), 0o700)
	}
	var f *os.File
	if err == nil {
		f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot lock the cluster %s against another kbf (in the user's cache directory): %w", k.Project, err)
	}
	if err := tryLock(f); err != nil {
		defer f.Close()
		if errors.Is(err, errLocked) {
			return nil, &InUseError{Project: k.Project, Holder: readHolder(f)}
		}
		return nil, fmt.Errorf("cannot lock the cluster %s against another kbf: lock %s: %w", k.Project, p, err)
	}
	if err := writeHolder(f, self()); err != nil {
		_ = unlock(f)
		f.Close()
		return nil, fmt.Errorf("cannot lock the cluster %s against another kbf: write %s: %w", k.Project, p, err)
	}
	return f, nil
}

// self is this process as its lock file names it.
func self() Holder {
	args := append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...)
	return Holder{PID: os.Getpid(), Command: strings.Join(args, " "), Since: time.Now()}
}
