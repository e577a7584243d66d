// Package ptyfile owns how a pseudo-terminal's master is held as a Go file
// ([Pollable]): served by the runtime's poller, so that deadlines and Close
// end a read in progress, and resized ([SetSize]) without the call that
// would make it blocking again. It opens, reads and writes nothing itself:
// callers own their PTYs.
package ptyfile
