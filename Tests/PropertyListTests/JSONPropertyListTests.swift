struct JSONPropertyListTests {}
