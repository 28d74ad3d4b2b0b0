package recording

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Create opens path to write a recording to, and changes no file it did not make:
//
//   - a file it creates is its owner's only (0600): a recording is redacted, but a
//     redaction rule may miss something, and a file under someone's home should
//     not be the place it leaks from;
//   - an existing regular file is truncated and keeps its mode and owner, as a
//     shell's > does;
//   - anything else that exists — a device such as /dev/stdout or /dev/null, a
//     named pipe — is opened for writing as it is, neither truncated nor
//     chmodded. (Run as root, a chmod of /dev/null would break it for everyone.)
//
// Opening a named pipe waits for a reader, as a shell's > does; a caller that must
// stay interruptible opens in a goroutine it can walk away from.
func Create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		flags := os.O_WRONLY
		if info, serr := os.Stat(path); serr == nil && info.Mode().IsRegular() {
			flags |= os.O_TRUNC
		}
		f, err = os.OpenFile(path, flags, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	return f, nil
}

// Open reads the recording at path.
func Open(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	rec, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}
