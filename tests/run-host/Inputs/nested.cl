//! param which int
//! result unit
//! string 0 "s"
//! record-words 8
/* Print records with lists, tuples and ranges. which = 0: good ones; 1: a
 * list claiming more items than the record has; 2: a record that ends
 * inside a list. */
#define ITEM(t, v) printbuf[at + 1 + 2 * k] = (t); printbuf[at + 2 + 2 * k] = (v); ++k
#define RANGE(a, b) (((long)(b) << 32) | (uint)(a))
__kernel void kite_uber(KITE_TEST_ARGS) {
  if (kite_test_probe(ctl, params)) return;
  if (get_global_id(0) != 0) return;
  int which = (int)ctl64[KITE_CTL64_ARGS];
  ctl[KITE_CTL_DONE] = 1;
  int at, k;
  if (which == 1) {
    at = kite_test_reserve(ctl, params, 3); k = 0; printbuf[at] = 3;
    ITEM(KITE_PRINT_INT, 1); ITEM(KITE_PRINT_LIST, 3); ITEM(KITE_PRINT_INT, 2);
    return;
  }
  if (which == 2) {
    at = kite_test_reserve(ctl, params, 4); k = 0; printbuf[at] = 4;
    ITEM(KITE_PRINT_LIST, 2); ITEM(KITE_PRINT_LIST, 2); ITEM(KITE_PRINT_INT, 1);
    ITEM(KITE_PRINT_INT, 2);
    return;
  }
  /* [1, 2, 3] (4, true) [5, 9] */
  at = kite_test_reserve(ctl, params, 8); k = 0; printbuf[at] = 8;
  ITEM(KITE_PRINT_LIST, 3); ITEM(KITE_PRINT_INT, 1); ITEM(KITE_PRINT_INT, 2);
  ITEM(KITE_PRINT_INT, 3); ITEM(KITE_PRINT_TUPLE, 2); ITEM(KITE_PRINT_INT, 4);
  ITEM(KITE_PRINT_BOOL, 1); ITEM(KITE_PRINT_RANGE, RANGE(5, 9));
  /* [[1.5, 2], [], [3]] (s, [-1, -2]) [] */
  at = kite_test_reserve(ctl, params, 11); k = 0; printbuf[at] = 11;
  ITEM(KITE_PRINT_LIST, 3); ITEM(KITE_PRINT_LIST, 2); ITEM(KITE_PRINT_DOUBLE, as_long(1.5));
  ITEM(KITE_PRINT_FLOAT, as_uint(2.0f)); ITEM(KITE_PRINT_LIST, 0); ITEM(KITE_PRINT_LIST, 1);
  ITEM(KITE_PRINT_LONG, 3); ITEM(KITE_PRINT_TUPLE, 2); ITEM(KITE_PRINT_STRING, 0);
  ITEM(KITE_PRINT_RANGE, RANGE(-1, -2)); ITEM(KITE_PRINT_LIST, 0);
  /* [[[[]]]] [(1, [2, (3)])] */
  at = kite_test_reserve(ctl, params, 11); k = 0; printbuf[at] = 11;
  ITEM(KITE_PRINT_LIST, 1); ITEM(KITE_PRINT_LIST, 1); ITEM(KITE_PRINT_LIST, 1);
  ITEM(KITE_PRINT_LIST, 0); ITEM(KITE_PRINT_LIST, 1); ITEM(KITE_PRINT_TUPLE, 2);
  ITEM(KITE_PRINT_INT, 1); ITEM(KITE_PRINT_LIST, 2); ITEM(KITE_PRINT_INT, 2);
  ITEM(KITE_PRINT_TUPLE, 1); ITEM(KITE_PRINT_INT, 3);
}
