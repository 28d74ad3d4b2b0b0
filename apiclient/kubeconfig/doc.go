// Package kubeconfig finds out where the API server is and how to prove who we are to
// it: it reads a kubeconfig (or the in-cluster service account) into a Config, and
// turns a Config into the http.RoundTripper that every request of package apiclient
// goes through.
//
// # Where this sits
//
//	apiclient ─▶ listwatch ─▶ fifo ─▶ store ─▶ queue ─▶ controller
//	^^^^^^^^^
//	kubeconfig is the first thing apiclient does: Load, then Transport.
//
// # The whole move
//
//	cfg, err := kubeconfig.Load(kubeconfig.Options{Path: flagKubeconfig, Context: flagContext})
//	tr, err := cfg.Transport()
//	client := &http.Client{Transport: tr}
//	client.Get(cfg.Server + "/api/v1/namespaces/" + cfg.Namespace + "/pods")
//
// Example_load (example_test.go) runs it on a kubeconfig written to a temporary
// directory.
//
// # Finding the kubeconfig
//
//	Options.Path (--kubeconfig)    ─▶ that file alone; it must exist
//	$KUBECONFIG (a:b:c)            ─▶ the files that exist, merged: the first to name a
//	                                  cluster/user/context wins that entry, whole; the
//	                                  first non-empty current-context wins
//	~/.kube/config                 ─▶ if it exists
//	KUBERNETES_SERVICE_HOST/_PORT  ─▶ in-cluster: token, ca.crt, namespace under
//	                                  /var/run/secrets/kubernetes.io/serviceaccount
//	nothing                        ─▶ ErrNoConfig
//
// Then current-context (or Options.Context) names a context, which names a cluster
// (server, CA, TLS server name, proxy) and a user (token, token file, basic auth,
// client certificate, exec plugin, impersonation). The namespace is the context's, else
// "default". Relative paths in a file are relative to that file's directory.
//
// # What a request goes through
//
//	http.Client ─▶ auth RoundTripper ─▶ *http.Transport ─▶ API server
//	                │ clone the request (the caller's is never changed)
//	                │ Authorization: Bearer <token | token file | exec> or Basic
//	                │ Impersonate-User / -Group / -Uid / -Extra-*
//	                └ exec only: 401 ─▶ run the plugin again ─▶ send once more
//
// The token file is read again at most once a minute (a projected token rotates); an
// exec credential is kept until its expirationTimestamp, and its client certificate is
// handed to TLS through tls.Config.GetClientCertificate, at each handshake.
//
// # Guarantees
//   - Load and Parse never run a plugin or dial: they read files. Everything that can be
//     checked there is: base64, PEM, that a certificate matches its key, that files
//     exist, that at most one kind of HTTP credential is set.
//   - Every error about the kubeconfig is one line naming the file, the entry and the
//     field (*Error): kubeconfig /home/u/.kube/config: user "admin": client-key-data:
//     illegal base64 data at input byte 4. None holds a token, a password, a key, or
//     anything an exec plugin printed: its stdout holds the credential, and its
//     stderr, which may hold a refresh token, goes to Config.Stderr as it comes.
//   - An error made while sending a request (an exec plugin's run, a token file
//     read again) reaches logs, traces, /readyz and the live page: its message
//     names the user entry and the field, and no path, the kubeconfig's included
//     (kubeconfig: user "admin": exec: plugin "aws" failed (exit status 1)).
//   - Config prints (String, every fmt verb, slog) without secrets.
//   - TLS is verified unless insecure-skip-tls-verify; TLS 1.2 at least.
//   - A token or password is never sent over plain http:// except to loopback; such a
//     request fails with an error instead. Credentials are only added to requests for
//     the Config's own server, so a redirect to another host does not carry them.
//   - Requests with a replayable body are retried at most once, after a 401, with an
//     exec plugin only; apiclient does every other retry.
//   - The plugin runs once for many concurrent requests, not once each.
//   - A plugin run ends: after 2 minutes at most, or when the request's context
//     does (Ctrl-C), killing the plugin's process group (unix), and a child it left
//     holding stdout delays nothing by more than 2 seconds.
//   - No file is opened unless it is a regular file: a named pipe given as the
//     kubeconfig, a tokenFile or a certificate would block the open past Ctrl-C.
//
// # Compared with client-go
//
// tools/clientcmd does the loading: loader.go (precedence, merging), client_config.go
// (context → rest.Config), api/v1 (the file format). The rules are the same:
// KUBECONFIG replaces ~/.kube/config, first file wins per entry, relative paths against
// the file. Differences: clientcmd decodes and validates every entry of every file; we
// decode only the context in use, so a broken entry you do not use does not stop you.
// clientcmd gathers every validation problem into one aggregate error; we stop at the
// first, on one line, with the field named. We refuse two HTTP credentials for one user
// (token and basic auth, a token and an exec plugin) at load time; client-go refuses
// some of these only when it builds the transport and lets others coexist.
// auth-provider is refused: client-go dropped its gcp and azure providers in 1.26, and
// every provider, oidc included, has an exec plugin replacing it.
//
// rest.Config is what we call Config; rest.InClusterConfig is inCluster here. rest
// also holds QPS, burst, user agent and timeouts, which apiclient keeps instead.
//
// transport (transport.go, round_trippers.go, token_source.go, cache.go) builds the
// http.Transport and stacks one RoundTripper per concern (bearer, basic,
// impersonation, user agent, debugging). We have one auth RoundTripper for the first
// three (apiclient sets the user agent) and no transport cache: call Transport once
// and share it. client-go configures HTTP/2 health pings (x/net/http2
// ReadIdleTimeout 30 s, PingTimeout 15 s) to notice a dead connection under a long
// watch; this transport sets the same numbers through the standard library's
// http.HTTP2Config (SendPingTimeout and PingTimeout, Go 1.24), so a stopped server
// under a watch is noticed within 45 s. HTTP/1.1 connections (through some
// proxies) have only 30 s TCP keep-alives and the Reflector's watchdog
// (listwatch/watchdog.go).
//
// plugin/pkg/client/auth/exec (exec.go) runs credential plugins. Same protocol
// (KUBERNETES_EXEC_INFO, v1 and v1beta1, provideClusterInfo, interactiveMode, cached
// until expirationTimestamp). Differences: on 401 client-go runs the plugin again for
// the next request and hands the 401 to the caller; we retry the request once with the
// new credential when its body can be sent again. The plugin's stderr is passed
// through to ours (Config.Stderr) as client-go does, and not kept: kubewire once
// quoted it in the error, and a plugin that printed a refresh token when it failed
// put it on the live page (issue 29). When a certificate is renewed
// client-go closes every connection (connrotation); we close the idle ones, and busy
// ones keep the old identity until they end. client-go sets no bound on a plugin's
// run time and waits for its pipes as long as any child holds them; we bound both.
package kubeconfig
