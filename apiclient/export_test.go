package apiclient

// Internals that the black-box tests in package apiclient_test reach through here.

// ErrorFromResponse exposes errorFromResponse to the Status fuzz target.
var ErrorFromResponse = func(code int, body []byte) error { return errorFromResponse("GET", "/x", code, body) }

// DecodeList exposes the streaming list decoder to its fuzz target.
var DecodeList = decodeList

// KeptBytes is how many bytes o keeps of its body, packed or not.
func KeptBytes(o *Object) int { return len(o.raw) }
