//! param n int
//! param a array<array<int>>
//! result array<int>
//! record-words 8
__kernel void kite_uber(KITE_TEST_ARGS) {
  ctl[KITE_CTL_DONE] = 1;
}
