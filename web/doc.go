// Package web serves the page that answers pending forms from a browser
// (`claudewrap serve`): every form waiting in the user's running sessions,
// with its real widgets (radio buttons, check boxes, typed text, notes,
// previews, chat, cancel), live, and after a submit what Claude recorded.
// The page is embedded (no build step); the server binds to loopback unless
// told otherwise and answers only requests carrying its random token. It
// reaches the sessions through a [Sessions] (package remote in the
// program); it never touches a PTY or a screen.
package web
