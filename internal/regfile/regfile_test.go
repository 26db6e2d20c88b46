package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       error
		what       string
	}{
		{name: "a regular file", path: file},
		{name: "a named pipe", path: fifo, want: ErrNotRegular, what: "a named pipe"},
		{name: "/dev/zero", path: "/dev/zero", want: ErrNotRegular, what: "a character device"},
		{name: "a link to /dev/zero", path: link, want: ErrNotRegular, what: "a character device"},
		{name: "a directory", path: dir, want: ErrNotRegular, what: "a directory"},
		{name: "missing", path: filepath.Join(dir, "nope"), want: fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ReadFile(tc.path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if tc.want == nil && string(b) != "x=1\n" {
				t.Errorf("read %q", b)
			}
			if tc.what != "" && !strings.Contains(err.Error(), tc.what) {
				t.Errorf("err = %v, want it to say %q", err, tc.what)
			}
		})
	}
}
