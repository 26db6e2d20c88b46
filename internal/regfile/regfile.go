// Package regfile opens the files a user names — a scenario, a client
// properties file, a key store, a kubeconfig, a trial's files — and refuses
// at once, in one line, what is not a regular file: a named pipe would block
// the reader for ever and a device such as /dev/zero would fill memory.
// It imports only the standard library, so any kbf package may use it.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is reported for a path that is a named pipe, a device, a
// socket or a directory where kbf reads a file.
var ErrNotRegular = errors.New("not a regular file")

// Check returns an error wrapping ErrNotRegular, saying what path is,
// unless st, path's FileInfo, is a regular file's.
func Check(path string, st fs.FileInfo) error {
	m := st.Mode()
	if m.IsRegular() {
		return nil
	}
	what := "a " + m.Type().String()
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s: %w but %s; kbf reads only files it can read to the end", path, ErrNotRegular, what)
}

// Open opens path for reading if it is a regular file and refuses it
// otherwise, without blocking on a pipe that has no writer.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		// Said as os.Open says it: the open is what failed.
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			pe.Op = "open"
		}
		return nil, err
	}
	if err := Check(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The path may have been replaced between Stat and Open.
	if st2, err := f.Stat(); err != nil || !os.SameFile(st, st2) {
		f.Close()
		return nil, fmt.Errorf("%s: changed while being opened", path)
	}
	return f, nil
}

// ReadFile is os.ReadFile for a regular file only.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
