package apitest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubewire/kubewire/apiclient"
)

// serveLive answers a request from the live objects: the verbs, each a method of
// liveState that returns the body and the status code, or a statusError.
func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	l := &s.live
	t, ok := parsePath(r.URL.Path)
	if !ok {
		if r.Method == http.MethodGet && l.serveDiscovery(w, r.URL.Path) {
			return
		}
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	l.mu.Lock()
	res, err := l.served(t)
	l.mu.Unlock()
	switch {
	case err == errNoRoute:
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case err != nil:
		writeError(w, err)
		return
	case r.Method == http.MethodPost && t.name == "" && res.namespaced && t.namespace == "":
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "the server does not allow this method on the requested resource")
		return
	}
	t.crd = res.crd
	q := r.URL.Query()
	if err := checkParams(r, t, q); err != nil {
		writeError(w, err)
		return
	}
	t.dryRun = q.Get("dryRun") == "All"
	t.validation = q.Get("fieldValidation")
	metadataOnly := wantsMetadataOnly(r)
	manager := q.Get("fieldManager")
	if manager == "" {
		// Without fieldManager the User-Agent names the manager, up to its
		// first "/", as kube-apiserver does: "kubewire/0.1.0 (linux/amd64)"
		// is "kubewire".
		manager, _, _ = strings.Cut(r.Header.Get("User-Agent"), "/")
	}
	t.manager = manager
	// A custom resource converted by a webhook is stored at its storage
	// version: a request at another one converts on the way in and out
	// (conversion.go). A patch converts inside, under the write's lock.
	l.mu.Lock()
	conv := l.converter(t)
	l.mu.Unlock()
	requested := t.apiVersion()
	if conv != nil && t.version != conv.storageVersion() {
		t.conv = conv
	} else {
		conv = nil
	}
	atStorage := func(body object) (object, target, error) {
		if conv == nil {
			return body, t, nil
		}
		o, err := conv.convert(body, conv.storage)
		st := t
		st.version, st.conv = conv.storageVersion(), nil
		l.mu.Lock()
		if r, ok := l.customResource(st); ok {
			st.crd = r.crd // the storage version's schema decodes it there
		}
		l.mu.Unlock()
		return o, st, err
	}
	var warnings []string
	t.warn = &warnings
	var out []byte
	var code int
	switch {
	case t.sub == "scale" && t.name != "" && scaleOf(t.crd) != nil:
		out, code, err = l.scale(r.Method, r.Header.Get("Content-Type"), t, r.Body, q.Get("force") == "true") // scale.go
	case r.Method == http.MethodGet && t.name == "" && (q.Get("watch") == "true" || q.Get("watch") == "1"):
		l.watch(w, r, t, q, metadataOnly)
		return
	case r.Method == http.MethodGet && t.name == "":
		out, code, err = l.list(t, q, metadataOnly)
	case r.Method == http.MethodGet:
		if out, code, err = l.get(t, q.Get("resourceVersion")); err == nil && metadataOnly {
			out = partialJSON(out)
		}
	case r.Method == http.MethodPost && t.name == "":
		var body object
		if body, err = readBody(r.Body, t, &warnings); err == nil && !sameNamespace(t, body) {
			err = fail(http.StatusBadRequest, "the namespace of the provided object does not match the namespace sent on the request")
		} else if err == nil {
			var at target
			if body, at, err = atStorage(body); err == nil {
				out, code, err = l.create(at, body, manager)
			}
		} else {
			err = fail(http.StatusBadRequest, "%v", err)
		}
	case r.Method == http.MethodPut && t.name != "":
		var body object
		if body, err = readBody(r.Body, t, &warnings); err == nil && !sameNamespace(t, body) {
			err = fail(http.StatusBadRequest, "the namespace of the provided object does not match the namespace sent on the request")
		} else if err == nil {
			var at target
			if body, at, err = atStorage(body); err == nil {
				out, code, err = l.update(at, body, manager)
			}
		} else {
			err = fail(http.StatusBadRequest, "%v", err)
		}
	case r.Method == http.MethodPatch && t.name != "":
		var patch []byte
		if patch, err = io.ReadAll(r.Body); err == nil {
			out, code, err = l.patch(t, r.Header.Get("Content-Type"), patch, manager, q.Get("fieldManager") != "", q.Get("force") == "true")
		}
	case r.Method == http.MethodDelete && t.name == "" && t.sub == "":
		var opts deleteOptions
		if body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20)); len(strings.TrimSpace(string(body))) > 0 {
			if jerr := json.Unmarshal(body, &opts); jerr != nil {
				err = fail(http.StatusBadRequest, "the DeleteOptions: %v", jerr)
			}
			err = cmp.Or(err, checkDryRun("DeleteOptions", opts.DryRun))
		} else if t.dryRun {
			opts.DryRun = []string{"All"}
		}
		t.dryRun = slices.Contains(opts.DryRun, "All")
		if err == nil {
			out, code, err = l.deleteCollection(t, q, opts)
		}
	case r.Method == http.MethodDelete && t.name != "":
		// DeleteOptions come in the body, or else in the query; a body, when
		// there is one, is all of them (kube-apiserver reads no query then:
		// ?dryRun=All beside a body that does not say it deletes for real).
		var opts deleteOptions
		if body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20)); len(strings.TrimSpace(string(body))) > 0 {
			if jerr := json.Unmarshal(body, &opts); jerr != nil {
				err = fail(http.StatusBadRequest, "the DeleteOptions: %v", jerr)
			}
			t.dryRun = slices.Contains(opts.DryRun, "All")
			if err == nil {
				err = checkDryRun("DeleteOptions", opts.DryRun)
			}
		}
		if err == nil {
			dt := t
			if conv != nil {
				dt.version, dt.conv = conv.storageVersion(), nil
			}
			out, code, err = l.delete(dt, opts)
		}
	default:
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "%s is not supported on %s", r.Method, r.URL.Path)
		return
	}
	if err == nil && conv != nil {
		out, err = conv.answerAt(out, requested)
	}
	for _, text := range warnings {
		w.Header().Add("Warning", warningHeader(text))
	}
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(out, '\n'))
}

// find returns the stored object t names; called with l.mu held. A
// subresource other than status, or status where the resource has none, is
// not found, as on the real server.
func (l *liveState) find(t target, st strategy) (object, error) {
	if t.sub != "" && !(t.sub == "status" && st.status) {
		return nil, fail(http.StatusNotFound, "the server could not find the requested resource")
	}
	o, ok := l.objects[t.collection()][key(t.namespace, t.name)]
	if !ok {
		return nil, fail(http.StatusNotFound, "%s %q not found", t.collection(), t.name)
	}
	return o, nil
}

// get answers a GET of one object: the current one, at any resourceVersion
// the server has reached (the latest is no older than any), and 504 at one
// it has not.
func (l *liveState) get(t target, rv string) ([]byte, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n, _ := strconv.ParseInt(rv, 10, 64); n > l.rv {
		return nil, 0, tooLarge(n, l.rv)
	}
	o, err := l.find(t, l.strategyFor(t))
	if err != nil {
		return nil, 0, err
	}
	return marshal(o), http.StatusOK, nil
}

// maxGeneratedNameLength is how much of a generateName a name keeps: 63 less
// the five characters drawn.
const maxGeneratedNameLength = 63 - 5

// sameNamespace reports whether o's namespace, if it names one, is t's.
func sameNamespace(t target, o object) bool {
	ns, _ := o.meta()["namespace"].(string)
	return ns == "" || ns == t.namespace
}

// create stores a new object, as POST does; called without l.mu.
func (l *liveState) create(t target, o object, manager string) ([]byte, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.strategyFor(t)
	if t.sub != "" {
		return nil, 0, fail(http.StatusMethodNotAllowed, "POST is not supported on a subresource")
	}
	o, err := decoded(t, o, decodeBody)
	if err != nil {
		return nil, 0, err
	}
	o = st.roundTrip(o)
	o.meta()["managedFields"] = trackUpdate(st, t, nil, o, manager, l.clock.Now()).encode()
	return l.insert(t, st, o, true)
}

// insert stores o, a new object whose managedFields are already worked out:
// it fills in what the server sets at creation. post: it came by a POST,
// whose body may not carry a resourceVersion (an apply's may: it is a
// precondition). Called with l.mu held.
func (l *liveState) insert(t target, st strategy, o object, post bool) ([]byte, int, error) {
	if err := l.admitNamespace(t, o); err != nil {
		return nil, 0, err
	}
	if t.namespace != "" {
		o.meta()["namespace"] = t.namespace
	}
	o, err := l.mutating(admissionAttrs{op: "CREATE", t: t, obj: o})
	if err != nil {
		return nil, 0, err
	}
	m := o.meta()
	name, _ := m["name"].(string)
	if name == "" {
		if gen, _ := m["generateName"].(string); gen != "" {
			// Cut so that the name, with its five drawn characters, stays
			// within 63, as kube-apiserver's names.SimpleNameGenerator.
			name = gen[:min(len(gen), maxGeneratedNameLength)] + randomSuffix(l.rand)
			m["name"] = name
		}
	}
	if name == "" {
		return nil, 0, invalid(kindOf(t, o), "", "metadata.name", "FieldValueRequired", "Required value: name or generateName is required")
	}
	if t.namespace != "" {
		m["namespace"] = t.namespace
	}
	ns, _ := m["namespace"].(string)
	coll := l.collection(t.collection())
	m["uid"] = randomUID(l.rand)
	m["creationTimestamp"] = l.clock.Now().UTC().Format(time.RFC3339)
	sentRV := m["resourceVersion"]
	for _, k := range []string{"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"} {
		delete(m, k)
	}
	if st.generation {
		m["generation"] = json.Number("1")
	}
	if st.status {
		delete(o, "status") // a status subresource's status is set through it alone
	}
	if t.collection() == crdCollection {
		o["status"] = crdStatus(o, l.clock.Now())
	}
	if st.namespace {
		createNamespace(o)
	}
	if st.graceful {
		// The one default apitest gives: a new Pod is Pending (its kubelet
		// moves it on, or a test through pods/status).
		o["status"] = map[string]any{"phase": "Pending"}
	}
	if mf, _ := m["managedFields"].([]any); len(mf) == 0 {
		delete(m, "managedFields")
	}
	o["apiVersion"], o["kind"] = t.apiVersion(), kindOf(t, o)
	if err := st.validate(t, o["kind"].(string), o); err != nil {
		return nil, 0, err
	}
	warnFinalizers(t, st, nil, o)
	if err := l.validating(admissionAttrs{op: "CREATE", t: t, obj: o}); err != nil {
		return nil, 0, err
	}
	// Validated first, then stored: a name taken is found by the storage.
	if sentRV != nil && sentRV != "" && !t.dryRun && post {
		// etcd's store refuses it before it looks for the name; a dry run
		// never gets there.
		return nil, 0, statusError{code: http.StatusInternalServerError, error: fmt.Errorf("resourceVersion should not be set on objects to be created")}
	}
	if _, ok := coll[key(ns, name)]; ok {
		return nil, 0, statusError{code: http.StatusConflict, reason: "AlreadyExists", error: fmt.Errorf("%s %q already exists", t.collection(), name),
			details: &apiclient.StatusDetails{Name: name, Group: t.group, Kind: t.resource}}
	}
	if t.dryRun {
		// Answered with no resourceVersion of its own, as the real dry run
		// (which echoes one the request carried).
		if sentRV != nil {
			m["resourceVersion"] = sentRV
		}
		return marshal(o), http.StatusCreated, nil
	}
	coll[key(ns, name)] = o
	return l.record("ADDED", t.collection(), nil, o), http.StatusCreated, nil
}

// update replaces an object, as PUT does: only at its resourceVersion, when
// the body names one.
func (l *liveState) update(t target, o object, manager string) ([]byte, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.strategyFor(t)
	m := o.meta()
	if name, _ := m["name"].(string); name != "" && name != t.name {
		return nil, 0, fail(http.StatusBadRequest, "the name of the object (%s) does not match the name on the URL (%s)", name, t.name)
	}
	// The body is decoded first, as kube-apiserver does: a time that is
	// none is 400 whether or not the object exists.
	o, err := decoded(t, o, decodeBody)
	if err != nil {
		return nil, 0, err
	}
	if st.namespace && t.sub == "finalize" {
		return l.finalizeNamespace(t, o)
	}
	old, err := l.find(t, st)
	if err != nil {
		if t.sub == "" && st.createOnUpdate {
			o = st.roundTrip(o)
			o.meta()["managedFields"] = trackUpdate(st, t, nil, o, manager, l.clock.Now()).encode()
			return l.insert(t, st, o, false)
		}
		return nil, 0, err
	}
	rv, _ := m["resourceVersion"].(string)
	if rv == "" && !st.unconditional {
		return nil, 0, invalid(kindOf(t, old), t.name, "metadata.resourceVersion", "FieldValueInvalid", "Invalid value: 0: must be specified for an update")
	}
	if rv != "" && rv != old.meta()["resourceVersion"] {
		return nil, 0, conflict(t)
	}
	o = st.roundTrip(o)
	return l.commit(t, st, old, o, trackUpdate(st, t, old, o, manager, l.clock.Now()), viaUpdate)
}

func conflict(t target) error {
	return statusError{code: http.StatusConflict, reason: "Conflict",
		error:   fmt.Errorf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", t.collection(), t.name),
		details: &apiclient.StatusDetails{Name: t.name, Group: t.group, Kind: t.resource}}
}
