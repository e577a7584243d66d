// Package peercred asks the kernel who is at the other end of a Unix
// socket (user and process: SO_PEERCRED on Linux, LOCAL_PEERCRED and
// LOCAL_PEERPID on macOS) and walks a process's ancestry. The hook socket
// and the remote-control socket use it: a socket's path proves nothing.
package peercred
