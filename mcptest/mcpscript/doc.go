// Package mcpscript runs scenario files of MCP clients and servers with
// github.com/rogpeppe/go-internal/testscript: commands that connect
// clients, call tools and count executions, and the programs scripts run.
// It is kept apart from mcptest so that only the tests that run scripts
// link testscript.
//
// [Main] installs the programs below and your own
// ([MainOptions].Programs), run with exec or connected to with connect
// stdio. [RunScripts] runs a directory of scripts with the commands below:
//
//	func TestMain(m *testing.M) {
//		mcpscript.Main(m, &mcpscript.MainOptions{Programs: map[string]func() int{"myserver": myserver.Main}})
//	}
//	func TestScripts(t *testing.T) { mcpscript.RunScripts(t, "testdata/script") }
//
// [Params] returns the testscript.Params that RunScripts uses, for a test
// that adds commands, conditions or a Setup of its own before calling
// testscript.Run.
//
// A script connects clients by name and asserts on what they see:
//
//	# A call runs once, even when the server crashes in the middle of it.
//	connect docs stdio fakeserver --count-file counts.json --fault crash@lookup:7
//	! call docs lookup '{"query":"x"}'
//	stderr '^class: server$'
//	executions counts.json lookup 1
//
// The commands, sorted by name (Params().Cmds):
//
//	authcounts NAME [COUNTER N]...
//		Print the counters of the auth server NAME, one "COUNTER N" per
//		line: registrations, authorizations, tokens, refreshes, refusals,
//		resource-refusals, jwt-bearer, token-exchanges, dpop-proofs,
//		dpop-refusals, nonces (see oauthtest.AuthCounts). With COUNTER N pairs, fail
//		unless each is so (with !, fail if all are).
//
//	authexpire [-refresh] NAME
//		Expire every access token the auth server NAME issued so far
//		(oauthtest.AuthServer.ExpireTokens); with -refresh, revoke its refresh tokens
//		instead (oauthtest.AuthServer.RevokeRefreshTokens).
//
//	authserver [-scope S]... [-token-ttl D] [-token-delay D] [-invalid-grant] [-wrong-issuer] [-loop401]
//	           [-trust AUTHSERVER]... [-require-dpop] [-dpop-nonce] [-stale-nonces] [-refuse-grant CODE] NAME
//		Start a fake OAuth authorization server named NAME (oauthtest.StartAuthServer,
//		with the flags as AuthServerOptions: -trust adds an auth server
//		started before to Trust), print its URL and set $NAME_URL to it.
//		Its client is mcptest-client, secret mcptest-secret. serve -auth
//		NAME protects a fake with it.
//
//	call [-timeout D] CLIENT TOOL [JSON]
//		Call TOOL once with the JSON object as arguments, within D (30s by
//		default: a call that gets no answer fails there, class timeout,
//		rather than hanging the script). Stdout holds the
//		text of each text content, one per line; on failure stderr holds
//		"class: CLASS" (the client.FailureClass) and "error: …" with the
//		error (and, for a child, its exit status and stderr tail). A tool
//		that reports an error (isError) is a failure, of class tool; a call
//		a replayed cassette does not hold is one of class mismatch, its
//		error naming the cassette's line (cassette.MismatchError).
//
//	catalog CLIENT
//		Print the client's catalog as indented JSON: fingerprint, tools,
//		resources, resourceTemplates, prompts. Compare it with cmpjson.
//
//	close [-within D] CLIENT
//		Close the client: drain calls, end the session, reap a child. With
//		-within, also fail if Close took longer than D.
//
//	cmpjson FILE1 FILE2
//		Compare two JSON files (FILE1 may be stdout or stderr) as JSON
//		values, printing a go-cmp diff (-FILE2 +FILE1) when they differ.
//
//	connect [-profile P] [-record FILE] [-timeout D] [-tasks] [-poll D] [-max-polls N] [HANDLER FLAGS] CLIENT KIND ARGS...
//		Connect a client named CLIENT (also its Definition.Name), with the
//		protocol profile P (client.ParseProfile: default, a revision such as
//		2026-07-28 or 2025-11-25, or legacy; default negotiates 2026-07-28
//		and accepts 2025-11-25). HANDLER FLAGS answer the server's requests
//		for input (on 2025-11-25 during a call, on 2026-07-28 through
//		input-required results), deterministically: -elicit ACTION
//		(accept, with content {"answer":"yes"}; decline; cancel), -sample
//		TEXT (the model "mcptest" answers TEXT), -root URI (repeatable).
//		Without them the client declares no such capability. -tasks
//		declares the tasks extension on its tool calls (Definition.Tasks),
//		so that a server may run a tool as a task, which call waits for;
//		-poll D polls a task every D (Limits.TaskPollMin and TaskPollMax),
//		-max-polls N at most N times (Limits.MaxTaskPolls). Connected, it
//		prints the negotiated revision ("protocol 2026-07-28"). A failure (a program not found, a child
//		that exits, a cassette missing, …) may be expected with !: stderr
//		then holds "class: CLASS" and "error: …" as for call. KIND is:
//		  inprocess SERVER          a fake server started by serve
//		  stdio [FLAGS] PROG [ARGS] a supervised child; PROG is looked up in
//		                            the script's $PATH (fakeserver, mcpcall,
//		                            and yours from MainOptions are
//		                            there). FLAGS: -env NAME=VALUE
//		                            (repeatable), -inherit NAMES (comma list;
//		                            - for none), -stderr-bytes N,
//		                            -max-frame-bytes N, -close-grace D,
//		                            -term-grace D. The child's environment is
//		                            the allowlist taken from the test process
//		                            (not the script: use mcpcall for that),
//		                            plus -env values and GORACE.
//		  http [HTTP FLAGS] URL     a Streamable HTTP server (transport/
//		                            streamablehttp; http only on loopback)
//		  sse [HTTP FLAGS] URL      a legacy HTTP+SSE server (transport/sse,
//		                            protocol 2024-11-05): chosen only by name
//		  replay [FLAGS] FILE       the session recorded in the cassette FILE,
//		                            with no server at all. FLAGS: -fault SPEC
//		                            (repeatable) injects a fault
//		                            (cassette.ParseFault: drop@N,
//		                            delay@N:DURATION, end@N, status@N:CODE, fail@N,
//		                            N a message of mcprig inspect, or a request
//		                            METHOD[=NAME][#NTH]; FAULTS.md lists them);
//		                            -allow-unused lets the client leave
//		                            recorded requests unmade
//		HTTP FLAGS: -token-env VAR (send the value of the script's variable
//		VAR as a static bearer token), -client-id ID with
//		-client-secret-env VAR (obtain tokens with the client credentials
//		grant, discovering the authorization server from the server's 401:
//		auth.NewClientCredentials), -workload-token-file FILE (present the
//		workload's token in FILE with the JWT-bearer grant, read again for
//		each token: auth.NewWorkloadIdentity), -dpop (with -client-id or
//		-workload-token-file: DPoP-bound tokens, a key made for the
//		connection: auth.NewDPoPKey), -max-event-bytes N,
//		-header-timeout D (Timeouts.ResponseHeader); http only:
//		-no-standalone (no standalone GET stream), -max-resume-attempts N.
//		-record FILE writes the session to the cassette FILE when the client
//		closes (http: recorded at the HTTP level; the token is redacted).
//		Closing a replay client reports the replay's first mismatch that
//		no call reported already, and the recorded requests never made
//		(cassette.UnusedError).
//		-timeout bounds the handshake and discovery.
//
//	diagnose CLIENT
//		Print how the client's child ended: "running", or the lines
//		exited, exit-code, signal, error (if any), stderr-bytes (the tail's
//		length) and stderr-tail.
//
//	idtoken [-ttl D] NAME SUBJECT AUDIENCE FILE
//		Write to FILE a JWT the auth server NAME signs for SUBJECT with
//		AUDIENCE (oauthtest.AuthServer.IDToken; -ttl its lifetime, negative for an
//		expired one): a workload's token for connect -workload-token-file
//		(AUDIENCE the server's $NAME_URL).
//
//	executions SOURCE TOOL [N]
//		Print how many times TOOL was executed by SOURCE, a server started
//		by serve or a fakeserver's --count-file; with N, fail unless it is
//		N (with !, fail if it is). A round that asked the client for input
//		is not an execution (see fakeserver.Counts).
//
//	killchild CLIENT [SIGNAL]
//		Send SIGNAL (default KILL; "TERM", "SIGINT", …) to the client's
//		child process. On Windows only KILL can be sent.
//
//	procs CLIENT
//		Print the running processes of the client's child's process group,
//		"PID COMMAND" per line; nothing once Close has reaped them.
//
//	requests [-other] SERVER
//		Print what a server started by serve -http or -sse saw, one request
//		per line in order of arrival (fakeserver.Request):
//		  METHOD [RPC [TOOL]] [session=ID] [last-event-id=ID]
//		         [sent-event-id=ID] [auth] [fault=KIND] status=N
//		e.g. "DELETE session=fake-1 status=204". Event ids are printed as
//		stream-N_INDEX, N numbering the streams in order of first
//		appearance, so that the output is the same on every run; auth means
//		the request carried an Authorization header (never its value).
//		With -other, print what reached the other origin instead.
//
//	rounds SOURCE TOOL [N]
//		As executions, for the rounds of TOOL: one more than its
//		executions for each call that asked the client for input once.
//
//	serve [-http [-stateless] [AUTH FLAGS] | -sse] SERVER [--catalog NAME] [--revision REV] [--fault SPEC]...
//		Start a fake server (fakeserver.New) named SERVER, for connect
//		inprocess and executions; --catalog may name a catalog
//		registered through MainOptions.Catalogs; --revision 2025-11-25
//		or 2026-07-28 serves that protocol revision only
//		(fakeserver.Options.Revision). Only in-process faults apply,
//		unless -http serves it over Streamable HTTP (stateless with
//		-stateless; or -sse over legacy HTTP+SSE) on a loopback port,
//		where the HTTP faults apply too (without -http or -sse they are
//		refused)
//		(drop, drop-no-id, delay-headers, unauthorized, forbidden, gone,
//		server-error, no-get, redirect, foreign-endpoint). Then serve prints the URL and
//		sets $NAME_URL to it and $NAME_OTHER_URL to the other origin
//		(NAME: SERVER in upper case), and requests shows what it saw.
//		AUTH FLAGS make it a protected resource of an auth server
//		(oauthtest.Protection): -auth AUTHSERVER, -auth-scope S (needed by every
//		request; repeatable), -tool-scope TOOL=S (needed by calls of TOOL;
//		repeatable).
//
// When a script ends, the Setup of [Params] closes the clients it left
// open and fails the script if a process of their groups survives.
//
// The programs [Main] installs, run with exec:
//
//	fakeserver [FLAGS]
//		The fake server over stdin and stdout (fakeserver.Main; see
//		`fakeserver --help`): --catalog, --fault, --revision, --count-file,
//		--stop-file, --pid-file, --grandchild-pid-file.
//
//	mcpcall [FLAGS] TOOL [JSON] -- PROG [ARGS...]
//		A client in a process of its own, whose environment is the script's:
//		start PROG as a supervised stdio child (FLAGS as for connect stdio,
//		plus -timeout), call TOOL once, print its text, close. Exit status
//		1 on failure, with class and error on stderr.
//
// Your own programs ([MainOptions].Programs) are installed beside these,
// under the names you give them.
package mcpscript
