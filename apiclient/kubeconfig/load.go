package kubeconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Options says which kubeconfig Load should use and where it may look. The zero value
// follows kubectl's rules on the real machine; tests set Getenv (and HomeDir,
// ServiceAccountDir) so that nothing of the machine they run on leaks in. Plain data;
// Load only reads it.
//
// There is no namespace override: -n is the command's business, and it sets
// Config.Namespace after Load.
type Options struct {
	// Path is --kubeconfig: this file and no other; it must exist.
	Path string
	// Context is --context: use this context instead of current-context.
	Context string

	// Getenv reads KUBECONFIG, HOME (USERPROFILE on Windows) and
	// KUBERNETES_SERVICE_HOST/_PORT; nil means os.Getenv.
	Getenv func(string) string
	// HomeDir is where .kube/config lives; "" means $HOME as Getenv reports it.
	HomeDir string
	// ServiceAccountDir holds the in-cluster token, ca.crt and namespace files;
	// "" means /var/run/secrets/kubernetes.io/serviceaccount.
	ServiceAccountDir string
}

// DefaultServiceAccountDir is where the kubelet mounts a pod's service-account token.
const DefaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// Load finds the kubeconfig the way kubectl does and resolves it to one Config:
//
//	--kubeconfig PATH  ─▶ that file alone (it must exist)
//	$KUBECONFIG        ─▶ its files, merged (missing ones skipped)
//	~/.kube/config     ─▶ that file, if it exists
//	in a pod           ─▶ the service account (KUBERNETES_SERVICE_HOST/_PORT)
//	otherwise          ─▶ ErrNoConfig
//
// A set KUBECONFIG replaces ~/.kube/config rather than adding to it; when none of its
// files exists Load goes on to the in-cluster step, as client-go does.
//
// Merging follows kubectl: the first file to define a cluster, user or context name
// wins that whole entry, and the first non-empty current-context wins. Errors are
// *Error values naming the file, the entry and the field.
//
// Cost: reads the kubeconfig files and the files they name; no network, no exec.
func Load(opts Options) (*Config, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Path != "" {
		return loadFiles([]string{opts.Path}, true, opts.Context)
	}
	if list := opts.Getenv("KUBECONFIG"); list != "" {
		cfg, err := loadFiles(filepath.SplitList(list), false, opts.Context)
		if !errors.Is(err, ErrNoConfig) {
			return cfg, err
		}
	} else if home := homeDir(opts); home != "" {
		path := filepath.Join(home, ".kube", "config")
		if exists(path) {
			return loadFiles([]string{path}, true, opts.Context)
		}
	}

	cfg, err := inCluster(opts)
	if errors.Is(err, ErrNoConfig) && opts.Context != "" {
		// A context was asked for and there is no kubeconfig to hold it: say so, and
		// still let the caller recognise ErrNoConfig.
		return nil, fmt.Errorf("context %q: %w", opts.Context, err)
	}
	return cfg, err
}

// loadFiles reads the files in order into one set and resolves it. When none of them
// exists (and mustExist is false) it returns ErrNoConfig.
func loadFiles(paths []string, mustExist bool, context string) (*Config, error) {
	var s set
	for _, path := range paths {
		if path == "" {
			continue // KUBECONFIG=a::b, or a trailing separator
		}
		data, err := readFile(path)
		if errors.Is(err, os.ErrNotExist) && !mustExist {
			continue
		}
		if err != nil {
			return nil, &Error{Source: path, Err: unwrapPath(err)}
		}
		if err := s.add(data, path); err != nil {
			return nil, err
		}
	}
	if len(s.sources) == 0 {
		return nil, ErrNoConfig
	}
	return s.resolve(context)
}

// homeDir is where ~/.kube lives: the option, else HOME from the (injected)
// environment, so that a test's fake environment hides the real home.
func homeDir(opts Options) string {
	if opts.HomeDir != "" {
		return opts.HomeDir
	}
	if runtime.GOOS == "windows" {
		return opts.Getenv("USERPROFILE")
	}
	return opts.Getenv("HOME")
}

// unwrapPath drops the path from an *os.PathError when the *Error names it already:
// "kubeconfig /x: open: no such file or directory" rather than saying /x twice.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
