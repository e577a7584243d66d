// Package inbox is one inbox for the forms that wait for a person on every
// machine, on NATS JetStream: a run publishes its waiting forms there, and
// any answering side, on any machine, lists them and answers them.
//
// The inbox is three key-value buckets ([FormsBucket], [ClaimsBucket],
// [OutcomesBucket]). A run's [Publisher] keeps its forms current in the
// first, watches the second for answers to its own forms, and writes what
// came of each in the third. An answer is a claim: one write that the
// server makes on the condition that no claim of that form's round exists,
// so exactly one answer takes a form cluster-wide, and every other learns
// who took it. The run's own answers (its terminal, its local socket)
// claim the same way ([Publisher.ClaimLocal]). A [Reach] is how a run uses
// all this (the session's Config.Reach): it reads what waits from the
// session's handler, publishes and withdraws it, applies each answer that
// took a form through that handler as a local answer is applied, and
// wraps the handler the local socket serves so that a local answer claims
// its form first. Who answered is the claim key's last token, which the
// server's permissions let only that NATS user write (docs/inbox.md): the
// package proves no more than those permissions say.
//
// It owns the buckets' layout, the values' wire format (versioned; text
// from a form is stored as it is, and escaped by whoever prints it) and the
// connection's security checks ([Dial]: TLS and NATS's own credentials;
// plaintext only to this machine unless allowed; [DialRun] for a run, which
// starts with its inbox unreachable). It does not drive Claude or check an
// answer itself (the session's handler does, and [remote.Check]), print
// anything (a run's Reach says what happens as events), or run a broker:
// the server is nats-server.
package inbox
