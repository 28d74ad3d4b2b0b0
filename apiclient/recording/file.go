package recording

import (
	"fmt"
	"os"
)

// Create creates (or truncates) the file at path for a recording, readable and
// writable by its owner only: a recording is redacted, but a redaction rule may
// miss something, and a file under someone's home should not be the place it leaks
// from. An existing file's mode is set to 0600 too.
func Create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
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
