// Package testtrial unpacks the recorded trials that tests of several
// packages (report, htmlreport, bench) analyse: gzipped tar archives of a
// trial directory kept under those packages' testdata.
package testtrial

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// MaxFile bounds what Untar writes per file; the recorded trials' files
// are a few MB at most.
const MaxFile = 64 << 20

// Untar unpacks the gzipped tar r into dst. It takes directories and regular
// files only, and refuses a name that would land outside dst (absolute,
// "..", a link) rather than trusting the archive.
func Untar(r io.Reader, dst string) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(hdr.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%q: outside the destination", hdr.Name)
		}
		path := filepath.Join(dst, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if hdr.Size > MaxFile {
				return fmt.Errorf("%q: %d bytes, more than a test trial holds", hdr.Name, hdr.Size)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			_, err = io.CopyN(f, tr, hdr.Size)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%q: %w", hdr.Name, err)
			}
		default:
			return fmt.Errorf("%q: entry type %q: only directories and regular files", hdr.Name, hdr.Typeflag)
		}
	}
}
