package otelmcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strconv"

	"github.com/looprig/mcp/client"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans this package starts.
const ScopeName = "github.com/looprig/mcp/otelmcp"

// Attribute keys of OpenTelemetry's semantic conventions for MCP.
const (
	AttrMethodName      = attribute.Key("mcp.method.name")
	AttrSessionID       = attribute.Key("mcp.session.id")
	AttrProtocolVersion = attribute.Key("mcp.protocol.version")
	AttrResourceURI     = attribute.Key("mcp.resource.uri")
	AttrToolName        = attribute.Key("gen_ai.tool.name")
	AttrPromptName      = attribute.Key("gen_ai.prompt.name")
	AttrOperationName   = attribute.Key("gen_ai.operation.name")
	AttrErrorType       = attribute.Key("error.type")
)

// Options configure the middleware. A nil *Options means the zero value.
type Options struct {
	// TracerProvider makes the tracer. If nil, otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// Propagator writes trace context into "_meta" and reads it back. If
	// nil, W3C Trace Context and Baggage.
	Propagator propagation.TextMapPropagator
}

// tracing is what the middleware uses, resolved from Options once.
type tracing struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

func (o *Options) resolve() *tracing {
	var cp Options
	if o != nil {
		cp = *o
	}
	if cp.TracerProvider == nil {
		cp.TracerProvider = otel.GetTracerProvider()
	}
	if cp.Propagator == nil {
		cp.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	return &tracing{
		tracer: cp.TracerProvider.Tracer(ScopeName, trace.WithInstrumentationVersion(client.Version)),
		prop:   cp.Propagator,
	}
}

// ClientMiddleware returns sending middleware for a client
// (client.Definition.SendingMiddleware, or mcp.Client.AddSendingMiddleware):
// a client span for every message sent, its trace context written into the
// message's "_meta". The caller's "_meta" map is copied, never changed.
func ClientMiddleware(opts *Options) mcp.Middleware {
	t := opts.resolve()
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p := params(req)
			ctx, span := t.start(ctx, trace.SpanKindClient, method, p, clientSession(req))
			defer span.End()
			if p != nil {
				meta := maps.Clone(p.GetMeta())
				if meta == nil {
					meta = map[string]any{}
				}
				t.prop.Inject(ctx, metaCarrier(meta))
				p.SetMeta(meta)
			}
			res, err := next(ctx, method, req)
			finish(span, res, err)
			return res, err
		}
	}
}

// ServerMiddleware returns receiving middleware for a server
// (mcp.Server.AddReceivingMiddleware; server.Server.MCP gives it): a
// server span for every message received, child of the trace context in
// its "_meta" when there is one.
func ServerMiddleware(opts *Options) mcp.Middleware {
	t := opts.resolve()
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p := params(req)
			if p != nil {
				ctx = t.prop.Extract(ctx, metaCarrier(p.GetMeta()))
			}
			ctx, span := t.start(ctx, trace.SpanKindServer, method, p, serverSession(req))
			defer span.End()
			res, err := next(ctx, method, req)
			finish(span, res, err)
			return res, err
		}
	}
}

// start starts the span of one message.
func (t *tracing) start(ctx context.Context, kind trace.SpanKind, method string, p mcp.Params, sess session) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{AttrMethodName.String(method)}
	name := method
	switch p := p.(type) {
	case *mcp.CallToolParams:
		attrs = append(attrs, AttrToolName.String(p.Name), AttrOperationName.String("execute_tool"))
		name += " " + p.Name
	case *mcp.CallToolParamsRaw:
		attrs = append(attrs, AttrToolName.String(p.Name), AttrOperationName.String("execute_tool"))
		name += " " + p.Name
	case *mcp.GetPromptParams:
		attrs = append(attrs, AttrPromptName.String(p.Name))
		name += " " + p.Name
	case *mcp.ReadResourceParams:
		attrs = append(attrs, AttrResourceURI.String(p.URI))
	case *mcp.SubscribeParams:
		attrs = append(attrs, AttrResourceURI.String(p.URI))
	case *mcp.UnsubscribeParams:
		attrs = append(attrs, AttrResourceURI.String(p.URI))
	}
	if v, ok := metaString(p, mcp.MetaKeyProtocolVersion); ok {
		sess.protocol = v
	}
	if sess.protocol != "" {
		attrs = append(attrs, AttrProtocolVersion.String(sess.protocol))
	}
	if sess.id != "" {
		attrs = append(attrs, AttrSessionID.String(sess.id))
	}
	return t.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// finish records the outcome of a message on its span.
func finish(span trace.Span, res mcp.Result, err error) {
	if err != nil {
		span.SetAttributes(AttrErrorType.String(errorType(err)))
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		span.SetAttributes(AttrErrorType.String("tool_error"))
		span.SetStatus(codes.Error, "tool_error")
	}
}

// errorType names err as error.type: its JSON-RPC code, or its Go type.
func errorType(err error) string {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return strconv.FormatInt(we.Code, 10)
	}
	return fmt.Sprintf("%T", err)
}

// params returns req's params, or nil when it has none (a nil pointer).
func params(req mcp.Request) mcp.Params {
	if req == nil {
		return nil
	}
	p := req.GetParams()
	if p == nil {
		return nil
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return p
}

// metaString returns the string at key in p's "_meta".
func metaString(p mcp.Params, key string) (string, bool) {
	if p == nil {
		return "", false
	}
	s, ok := p.GetMeta()[key].(string)
	return s, ok && s != ""
}

// session is what a span tells of the session a message belongs to.
type session struct {
	protocol string // the revision negotiated, or asked for in initialize
	id       string // the session id (Streamable HTTP), or ""
}

// clientSession describes a client session's request.
func clientSession(req mcp.Request) session {
	cs, ok := req.GetSession().(*mcp.ClientSession)
	if !ok || cs == nil {
		return session{}
	}
	s := session{id: cs.ID()}
	if r := cs.InitializeResult(); r != nil {
		s.protocol = r.ProtocolVersion
	}
	return s
}

// serverSession describes a server session's request: the revision its
// client asked for in initialize.
func serverSession(req mcp.Request) session {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return session{}
	}
	s := session{id: ss.ID()}
	if p := ss.InitializeParams(); p != nil {
		s.protocol = p.ProtocolVersion
	}
	return s
}
