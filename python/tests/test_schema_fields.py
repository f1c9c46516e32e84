"""The Python side knows exactly the fields of the config schema (core/include/tinygpt/config.h).

The schema is declared once, in C++; Python reads each checkpoint's fields from the file. But the
PyTorch trainer must *do* what every field says, so tinygpt.trainer.FIELDS lists how it honours each
one. `tinygpt config` prints every schema field, in the schema's order: a row added to the schema
and not to FIELDS fails here (and a checkpoint that sets it is refused by the trainer, not ignored).
CTest: python_knows_every_schema_field.
"""
import unittest

from tests.common import cli
from tests.test_checkpoint import config_lines

from tinygpt.trainer import FIELDS


class SchemaFields(unittest.TestCase):
    def test_the_trainer_handles_exactly_the_schemas_fields(self):
        schema = [name for name, _ in config_lines(cli("config").stdout)]
        self.assertGreater(len(schema), 10)
        missing = [n for n in schema if n not in FIELDS]
        self.assertEqual(missing, [], "schema fields the Python trainer does not handle: add them to "
                                      "python/tinygpt/trainer.py FIELDS and honour them")
        stale = [n for n in FIELDS if n not in schema]
        self.assertEqual(stale, [], "FIELDS names fields the schema no longer has")
        self.assertEqual(list(FIELDS), schema)  # the same order, so the lists read side by side


if __name__ == "__main__":
    unittest.main()
