// Package web serves the page that answers pending forms from a browser
// (`claudewrap serve`): every form waiting in the user's running sessions
// (MCP servers' input forms too), with its real widgets, live, and after a
// submit what Claude recorded. The
// page is embedded; the [Server] binds to loopback unless told otherwise and
// answers only requests carrying its random token, and no request that
// changes something from another site's page; it logs each answer and each
// refusal to [Server.Log]. It reaches the sessions through [Sessions] (an
// inbox's forms of every machine too, which the page groups by machine,
// [Form]) and never touches a PTY or a screen.
package web
