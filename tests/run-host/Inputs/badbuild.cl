//! result unit
//! record-words 8
/* Does not compile: kite-run shows the build log. */
__kernel void kite_uber(KITE_TEST_ARGS) {
  this_is_not_declared = 1;
}
