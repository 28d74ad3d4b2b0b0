// Package recording is the file format of kubewire's recordings: what an API server
// answered to a LIST and to the watches after it, byte for byte, with the places where
// the connection ended, stalled or broke. Recordings are made from a real
// kube-apiserver (listwatch.Record, `kubewire record`) and replayed by the test server
// in apiclient/apitest, so a reflector test sees exactly the bytes a real server sent.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^
//	the wire bytes of the API server, as apiclient receives them: written by
//	listwatch.Record, replayed by apitest. It lives under apiclient because it is
//	about HTTP exchanges, not about reflecting, and because apitest (part of the
//	apiclient stage) may import nothing further down the pipeline.
//
// # The format
//
// A recording is a text file of lines. The first says what it is; then come
// exchanges, one request and its response each:
//
//	kubewire-recording v1
//	# how it was made: free text, kept with the file
//	> GET /api/v1/namespaces/demo/pods?limit=500&resourceVersion=0
//	< 200
//	{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1200"},"items":[…]}
//	> GET /api/v1/namespaces/demo/pods?allowWatchBookmarks=true&resourceVersion=1200&timeoutSeconds=300&watch=true
//	< 200
//	{"type":"ADDED","object":{…}}
//	{"type":"BOOKMARK","object":{…}}
//	< end
//
// Line by line:
//
//	> METHOD TARGET          a request: the method and the path with its query
//	< CODE [retry-after=N]   the status line of its response (and a Retry-After header)
//	{…} or […]               one line of the body, verbatim: the server writes a LIST as
//	                         one JSON document and a watch as one event per line
//	| TEXT                   a body line that is not JSON (a malformed line in a fault
//	                         script); TEXT is sent as it is
//	< end                    the server finished the body (the default)
//	< close                  the connection dropped after the last line
//	< cut N                  only the first N bytes of the last line were sent, then the
//	                         connection dropped: an event cut in half
//	< stall                  nothing more comes, but the connection stays open until the
//	                         client gives up; right after "> …" it means no answer at all
//	# TEXT                   a comment, kept with the exchange that follows
//
// An end line may carry a note after "#": "< stall # the client stopped reading
// here".
//
// Blank lines are ignored. Nothing else is allowed, so that a typo in a hand-written
// fault script is an error with a line number rather than a silently different test.
//
// Why text lines and not JSON or HAR: the wire format is already one JSON document per
// line, so a recording is the wire with a few markers in between. A reader can follow
// a scenario in an editor, cut it, or add a fault with one line, and git diffs stay
// readable.
//
// # Secrets
//
// Recordings are meant to be committed. The recorder (Transport) passes every body
// line through Redact, which replaces the values of a Secret's data and stringData,
// the last-applied-configuration annotation of a Secret, string values under keys
// that name credentials (password, token, apiKey, …) and strings that look like
// credentials (PEM private keys, JWTs, "Bearer …"). A body the secrets resource
// answered goes through RedactSecrets instead, which takes every object in it for a
// Secret whatever its kind field says: the path asked for decides, so a server that
// leaves kind out cannot get a Secret's data into a file. Everything else stays byte
// for byte. Request headers, where the credentials travel, are never recorded. Create
// makes new files readable by their owner only (0600), and changes the mode of no
// file it did not make.
//
// # Guarantees
//
//   - Parse never panics, whatever the input (FuzzParse); errors name the line.
//   - Write then Parse gives back the same Recording.
//   - A Writer writes each line whole; it is safe for concurrent use, but exchanges
//     must come one at a time to make sense (the recorder makes one request at a time).
//
// # Compared with client-go
//
// client-go has no recorder. Its tests fake a watch with watch.NewFake or
// httptest handlers written by hand; kube-rs does the same with a mocked service. A
// recording from the real server catches what hand-written JSON gets wrong: field
// order, bookmarks' shape, the exact Status of a 410, the initial-events-end
// annotation.
package recording
