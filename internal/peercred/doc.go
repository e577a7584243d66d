// Package peercred asks the kernel who is at the other end of a Unix
// socket ([Peer]: SO_PEERCRED on Linux, LOCAL_PEERCRED and LOCAL_PEERPID on
// macOS), walks a process's ancestry ([ParentOf], [Ancestry]) and names its
// program ([Program]). The hook socket and the remote-control socket use
// it, since a socket's path proves nothing and a client may name itself
// anything; whom to trust is theirs to decide.
package peercred
