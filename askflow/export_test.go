package askflow

// SameTypedForTest lets the external tests check sameTyped directly: the
// refusal before any key (TestUnshowableText) hides it otherwise.
var SameTypedForTest = sameTyped
