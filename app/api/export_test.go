package api

import "github.com/pocketbase/pocketbase/core"

// LogMiddleware is the request log's middleware, for tests that run it on handlers of their
// own (one that panics, one that returns an error unanswered).
func (l *RequestLog) LogMiddleware(e *core.RequestEvent) error { return l.middleware(e) }
