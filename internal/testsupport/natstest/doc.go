// Package natstest starts a real nats-server, in the test's own process,
// for the tests of the inbox: one node or a three-node JetStream cluster on
// loopback, each on ports chosen free, with whatever accounts, users and
// TLS a test's configuration text adds; a node can be stopped and started
// again on the same ports and store. It owns the servers it starts and
// their temporary folders, and nothing else. Only tests import it.
package natstest
