package kubeconfig

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// maxFileSize caps what we read for a kubeconfig or a file it names. Real ones are a
// few KiB; the cap turns a mistake (a path to a log file, /dev/zero) into an error
// instead of a process that eats memory or never returns.
const maxFileSize = 4 << 20

// readFile reads a regular file of at most maxFileSize bytes. Symlinks are followed:
// projected service-account tokens are symlinks into a ..data directory.
//
// A named pipe must not be opened at all: open(2) of a FIFO blocks until a
// writer comes, and no signal ends that (issue 16: `--kubeconfig fifo` hung
// until killed). So the path is checked before the open, and the open is
// non-blocking in case it became a FIFO in between; the check after the open is
// the one that counts.
//
// Cost: one stat, one open, one fstat, one read.
func readFile(path string) ([]byte, error) {
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d MiB", maxFileSize>>20)}
	}
	return data, nil
}

// notRegular is the error for a path that is not a regular file: a FIFO or a
// device would block or never end; a directory is a typo.
func notRegular(path string, mode os.FileMode) error {
	what := "not a regular file"
	switch {
	case mode&os.ModeNamedPipe != 0:
		what += " (a named pipe)"
	case mode&os.ModeDevice != 0:
		what += " (a device)"
	case mode.IsDir():
		what += " (a directory)"
	}
	return &os.PathError{Op: "read", Path: path, Err: errors.New(what)}
}

// resolvePath makes a path written in a kubeconfig absolute: a relative one is relative
// to the directory of the file that wrote it, not to our working directory, so a
// kubeconfig and its certificates can move together (minikube writes them so).
func resolvePath(source, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(source), p)
}

// exists reports whether path names something; any error other than "does not exist"
// counts as existing, so that reading it reports the real problem (permissions).
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
