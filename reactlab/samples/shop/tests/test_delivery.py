import unittest

from shop.delivery import delivery_price


class DeliveryTests(unittest.TestCase):
    def test_small_order_pays_for_delivery(self):
        self.assertEqual(delivery_price(500), 300)

    def test_order_above_free_delivery_threshold(self):
        self.assertEqual(delivery_price(2500), 0)

    def test_negative_total_is_rejected(self):
        with self.assertRaises(ValueError):
            delivery_price(-1)


if __name__ == "__main__":
    unittest.main()
