#include <stdio.h>
#include <jpeglib.h>
#include <setjmp.h>
