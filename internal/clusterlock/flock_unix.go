//go:build unix

package clusterlock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// errLocked is tryLock's answer when another open file holds the lock.
var errLocked = errors.New("locked")

// tryLock takes f's exclusive flock without waiting.
func tryLock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}

func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
