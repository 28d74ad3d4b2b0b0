// Package jsonwire is the hand-written JSON engine under apiclient's hot path:
// framing a stream into values, one validating walker, unquoting, and interning.
// It knows nothing of Kubernetes; apiclient decodes objects with it (decode.go,
// meta.go), and apiclient/recording finds the members it redacts with it.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^ (inside: internal to apiclient and its sub-packages)
//
// The line is import order. A learner can skip this package until the pipeline
// is clear: apiclient works as a black box.
//
// # The pieces
//
//	Reader (frame.go)        cut a stream into values in a reused buffer, reading
//	                         more as needed: Walk hands a value whole in the buffer
//	                         straight to the caller's walker; Frame tracks only
//	                         strings and brackets, for what Walk cannot take
//	CheckValue, WalkObject,  validate a value exactly as encoding/json does, and
//	WalkArray (valid.go)     hand each member or element to the caller on the way
//	Unquote, String          string literals to Go strings (unquote.go)
//	Intern (intern.go)       one shared copy of strings that repeat across objects
//	SyntaxError, ErrShort    what goes wrong, at which byte (errors.go)
//
// There is one walker. A caller that wants the parts of a value walks it with
// WalkObject or WalkArray and validates what it does not decode with CheckValue:
// every byte is looked at once, and nothing trusts input it has not checked.
//
// # Guarantees
//   - CheckValue accepts exactly what json.Valid accepts (FuzzCheckValue).
//   - A stream framed in reads cut anywhere gives the same values and the same
//     error as the stream read whole (FuzzFrames).
//   - Any input ends in a value or an error: no panic, no loop, no unbounded
//     recursion (MaxDepth) and no value longer than the Reader's max.
//   - Errors about malformed JSON satisfy errors.Is(err, ErrSyntax) and carry a
//     byte offset (SyntaxError); ErrShort means the input ended inside a value.
//   - The intern table is safe for concurrent use; everything else is a function
//     of its arguments, or (Reader) owned by one goroutine.
//
// # Compared with encoding/json and client-go
//
// encoding/json's Decoder scans each byte through a general state machine,
// copies every value it returns, and decodes by reflection. client-go decodes with
// its generated code (or protobuf), and keeps every string of every object. This
// package answers only "is this valid?" and "where does it end?", in one direct
// recursive pass, and leaves decoding to its callers: by hand where the cache pays
// for it (metadata), with encoding/json everywhere else.
//
// # Performance
//
// A controller's cost is its cache, and every cached object comes through here:
// tens of thousands at startup, thousands a second under churn. The path of one
// object:
//
//	wire ─▶ Reader.Walk         find the next value in the buffer, no copy, and
//	     ─▶ WalkObject          validate the object and find its members in the
//	                            same pass (apiclient's decodeAt), which also tells
//	                            where the value ends: no framing pass before it
//	     ─▶ apiclient/meta.go   decode metadata by hand as it is walked; intern
//	                            namespace, label keys and values, annotation keys
//	     ─▶ apiclient/decode.go keep one copy of the object without its metadata
//	                            (Metadata holds it, Raw writes it back)
//
// Measured on the recorded 5.2 KB pod of apiclient/testdata (go test -bench
// 'Decode|Field' -benchmem ./apiclient, 2 cores, quiet, 2026-11-22), encoding/json
// before → this path:
//
//	DecodeObject            31 µs, 61 allocs, 5.0 KB  →  6–7 µs, 13 allocs, 3.4 KB
//	LIST of 10,000 pods     51 µs a pod               →  12–14 µs a pod
//	heap a cached pod holds 3.9 KB                    →  3.4 KB
//
// and Object.FieldString("status", "phase"), which wrote the metadata back before
// walking the kept bytes: 48 allocs, 7.6 KB → 1 alloc, 8 B (the string it returns).
//
// Until 2026-11-25 each item of a LIST and each watch event was framed first
// (Reader.Frame: a scan for its end, tracking strings and brackets) and walked
// after: two passes over every byte, the framing as costly as the walk. Walk
// made it one (issue 33). BenchmarkDecodeList10k, the old and the new test
// binary alternating five times on a shared 2-core machine (load 7–15), medians,
// in bytes decoded per second of CPU the process spent, collector included
// (MB/cpu-s: on a busy machine the wall time says more about the neighbours):
//
//	framed, then walked     226 MB/cpu-s (183–274)
//	Walk                    491 MB/cpu-s (409–521)
//
// The walker itself (BenchmarkValid) reads the pod at 600–800 MB/s; reading eight
// bytes of a string at a time was tried and dropped: a pod's strings are short
// (keys, names, "f:" fields), and it measured no faster.
//
// The figures against client-go on the same server are in README's Benchmarks.
package jsonwire
