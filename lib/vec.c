// SPDX-License-Identifier: MIT
/* Growth policy for VEC() arrays. */
#include <stdint.h>

#include "lib/vec.h"

int vec_reserve_raw(void **data, size_t *cap, size_t need, size_t esz)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / esz)
		return -ENOMEM;
	p = realloc(*data, ncap * esz);
	if (!p)
		return -ENOMEM;
	*data = p;
	*cap = ncap;
	return 0;
}
